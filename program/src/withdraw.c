/* withdraw: the admin takes house funds out of the vault, never below config.open_liability, so
 * every open bet stays payable. The config PDA signs the token transfer. */
#include "errors.h"
#include "events.h"
#include "instructions.h"
#include "vault.h"

enum { CONFIG, ADMIN, VAULT, DESTINATION, TOKEN_PROGRAM, ACCOUNT_COUNT };

u64 withdraw(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8 + 8) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *config_account = &in->accounts[CONFIG];
  const SolAccountInfo *admin = &in->accounts[ADMIN];
  const SolAccountInfo *vault = &in->accounts[VAULT];
  const SolAccountInfo *destination = &in->accounts[DESTINATION];
  u64 amount = read_u64(in->data + 8);
  u64 err;

  if ((err = require_signer(admin))) return err;
  if ((err = require_writable(vault))) return err;
  if ((err = require_writable(destination))) return err;
  if ((err = require_program(&in->accounts[TOKEN_PROGRAM], &TOKEN_PROGRAM_ID))) return err;
  Config *config;
  if ((err = load_config(config_account, in->program_id, &config))) return err;
  if (!key_eq(admin->key, &config->admin)) return fail(ERR_UNAUTHORIZED);

  TokenAccount *vault_token;
  if ((err = load_vault(vault, config, &vault_token))) return err;
  if ((err = load_payee(destination, config, NULL))) return err;
  u64 left;
  if (!checked_sub(vault_token->amount, amount, &left)) return fail(ERR_VAULT_INSUFFICIENT);
  if (left < config->open_liability) return fail(ERR_WITHDRAW_BELOW_LIABILITY);
  if ((err = pay_from_vault(config_account, config, vault, destination, amount))) return err;
  emit_withdrawn(amount, destination->key);
  return 0;
}

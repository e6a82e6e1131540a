/* initialize: creates the config PDA and records admin, relayer, mint, vault and limits. Only the
 * program's upgrade authority may call it (it pays the rent), so nobody can take the config
 * address first after a deploy. */
#include "cpi.h"
#include "errors.h"
#include "events.h"
#include "instructions.h"

enum {
  CONFIG,
  AUTHORITY,
  ADMIN,
  RELAYER,
  MINT,
  VAULT,
  PROGRAM,
  PROGRAM_DATA,
  TOKEN_PROGRAM,
  SYSTEM_PROGRAM,
  ACCOUNT_COUNT
};

/* A win pays at least the stake back and at most 100x it. */
#define MAX_MULTIPLIER_BPS 1000000ULL
#define MAX_SECONDS (366LL * 24 * 3600)

u64 initialize(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8 + 40) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *config = &in->accounts[CONFIG];
  const SolAccountInfo *authority = &in->accounts[AUTHORITY];
  const SolAccountInfo *admin = &in->accounts[ADMIN];
  const SolAccountInfo *relayer = &in->accounts[RELAYER];
  const SolAccountInfo *mint = &in->accounts[MINT];
  const SolAccountInfo *vault = &in->accounts[VAULT];
  u64 min_amount = read_u64(in->data + 8);
  u64 max_amount = read_u64(in->data + 16);
  u64 multiplier_bps = read_u64(in->data + 24);
  i64 expiry_seconds = (i64)read_u64(in->data + 32);
  i64 refund_after_seconds = (i64)read_u64(in->data + 40);
  u64 err;

  if ((err = require_signer(authority))) return err;
  if ((err = require_writable(authority))) return err;
  if ((err = require_writable(config))) return err;
  if ((err = require_program(&in->accounts[TOKEN_PROGRAM], &TOKEN_PROGRAM_ID))) return err;
  if ((err = require_program(&in->accounts[SYSTEM_PROGRAM], &SYSTEM_PROGRAM_ID))) return err;
  if ((err = require_upgrade_authority(&in->accounts[PROGRAM], &in->accounts[PROGRAM_DATA], authority,
                                       in->program_id)))
    return err;

  const SolSignerSeed seeds[1] = {{(const u8 *)"config", 6}};
  u8 bump;
  if ((err = require_canonical_pda(config, seeds, 1, in->program_id, &bump))) return err;
  if (!key_eq(config->owner, &SYSTEM_PROGRAM_ID) || account_data_len(config) != 0)
    return fail(ERR_ALREADY_INITIALIZED);

  if (key_eq(admin->key, relayer->key)) return fail(ERR_ROLES_NOT_DISTINCT);
  if (!key_eq(mint->owner, &TOKEN_PROGRAM_ID)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(mint) != MINT_LEN || mint->data[MINT_IS_INITIALIZED_OFFSET] != 1)
    return fail(ERR_INVALID_ACCOUNT_DATA);
  TokenAccount *vault_token;
  if ((err = load_token_account(vault, &vault_token))) return err;
  if (!key_eq(&vault_token->mint, mint->key)) return fail(ERR_INVALID_MINT);
  if (!key_eq(&vault_token->owner, config->key)) return fail(ERR_INVALID_TOKEN_OWNER);

  if (min_amount == 0 || max_amount < min_amount || multiplier_bps < 10000 || multiplier_bps > MAX_MULTIPLIER_BPS ||
      expiry_seconds <= 0 || expiry_seconds > MAX_SECONDS || refund_after_seconds <= 0 ||
      refund_after_seconds > MAX_SECONDS)
    return fail(ERR_INVALID_PARAMETERS);

  const SolSignerSeed signer_seeds[2] = {{(const u8 *)"config", 6}, {&bump, 1}};
  const SolSignerSeeds signer = {signer_seeds, 2};
  if ((err = create_pda_account(authority, config, sizeof(Config), in->program_id, &signer))) return err;

  static const u8 disc[8] = DISC_CONFIG;
  Config *state = (Config *)config->data;
  bytes_copy(state->discriminator, disc, 8);
  key_copy(&state->admin, admin->key);
  key_copy(&state->pending_admin, &SYSTEM_PROGRAM_ID);
  key_copy(&state->relayer, relayer->key);
  key_copy(&state->mint, mint->key);
  key_copy(&state->vault, vault->key);
  state->counter = 0;
  state->next_bet_id = 1;
  state->min_amount = min_amount;
  state->max_amount = max_amount;
  state->multiplier_bps = multiplier_bps;
  state->expiry_seconds = expiry_seconds;
  state->refund_after_seconds = refund_after_seconds;
  state->open_liability = 0;
  state->paused = 0;
  state->bump = bump;
  emit_initialized(state);
  return 0;
}

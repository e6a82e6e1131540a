/* Vault checks and vault payouts (see vault.h). */
#include "vault.h"
#include "cpi.h"
#include "errors.h"

u64 load_vault(const SolAccountInfo *account, const Config *config, TokenAccount **out) {
  if (!key_eq(account->key, &config->vault)) return fail(ERR_INVALID_VAULT);
  return load_token_account(account, out);
}

u64 load_payee(const SolAccountInfo *account, const Config *config, const SolPubkey *owner) {
  TokenAccount *token;
  u64 err = load_token_account(account, &token);
  if (err) return err;
  if (!key_eq(&token->mint, &config->mint)) return fail(ERR_INVALID_MINT);
  if (owner != NULL && !key_eq(&token->owner, owner)) return fail(ERR_BETTOR_MISMATCH);
  return 0;
}

u64 pay_from_vault(const SolAccountInfo *config_account, const Config *config, const SolAccountInfo *vault,
                   const SolAccountInfo *destination, u64 amount) {
  const SolSignerSeed seeds[2] = {{(const u8 *)"config", 6}, {&config->bump, 1}};
  const SolSignerSeeds signer = {seeds, 2};
  return token_transfer(vault, destination, config_account, amount, &signer);
}

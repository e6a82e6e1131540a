/* The admin's price instructions (docs/decisions.md#signed-prices): set_price_rules creates the
 * price rules account beside the config on first use and turns signed prices on or off with the
 * maximum entry tick age; add_price_signer trusts a signer until a time (or moves its expiry);
 * remove_price_signer stops trusting one at once. */
#include "cpi.h"
#include "errors.h"
#include "instructions.h"
#include "prices.h"

enum { CONFIG, ADMIN, PRICE_RULES, SYSTEM_PROGRAM, ACCOUNT_COUNT };

/* The spec's 30 s rule is the most an entry tick may age; less may be configured. */
#define MAX_ENTRY_AGE_MS 30000ULL

/* The price rules after the admin check; *rules is NULL when never created. */
static u64 load_rules_as_admin(const Input *in, u64 data_len, PriceRules **rules) {
  if (in->count < PRICE_RULES + 1) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != data_len) return fail(ERR_INVALID_INSTRUCTION_DATA);
  Config *config;
  u64 err = load_admin_config(in, CONFIG, ADMIN, &config);
  if (err) return err;
  if ((err = require_writable(&in->accounts[PRICE_RULES]))) return err;
  return load_price_rules(&in->accounts[PRICE_RULES], in->program_id, rules);
}

u64 set_price_rules(const Input *in) {
  PriceRules *rules;
  u64 err = load_rules_as_admin(in, 8 + 1 + 8, &rules);
  if (err) return err;
  u8 require_signed = in->data[8];
  u64 max_entry_age_ms = read_u64(in->data + 9);
  if (require_signed > 1 || max_entry_age_ms == 0 || max_entry_age_ms > MAX_ENTRY_AGE_MS) return fail(ERR_INVALID_PARAMETERS);
  if (rules == NULL) {
    if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
    if ((err = require_program(&in->accounts[SYSTEM_PROGRAM], &SYSTEM_PROGRAM_ID))) return err;
    const SolAccountInfo *account = &in->accounts[PRICE_RULES];
    const SolSignerSeed seeds[1] = {{(const u8 *)"price_rules", 11}};
    u8 bump;
    if ((err = require_canonical_pda(account, seeds, 1, in->program_id, &bump))) return err;
    const SolSignerSeed signer_seeds[2] = {{(const u8 *)"price_rules", 11}, {&bump, 1}};
    const SolSignerSeeds signer = {signer_seeds, 2};
    if ((err = require_writable(&in->accounts[ADMIN]))) return err;
    if ((err = create_pda_account(&in->accounts[ADMIN], account, sizeof(PriceRules), in->program_id, &signer))) return err;
    static const u8 disc[8] = DISC_PRICE_RULES;
    rules = (PriceRules *)account->data;
    bytes_copy(rules->discriminator, disc, 8);
    rules->bump = bump;
    rules->signer_count = 0;
  }
  rules->require_signed = require_signed;
  rules->max_entry_age_ms = max_entry_age_ms;
  return 0;
}

u64 add_price_signer(const Input *in) {
  PriceRules *rules;
  u64 err = load_rules_as_admin(in, 8 + 32 + 8, &rules);
  if (err) return err;
  if (rules == NULL) return fail(ERR_NOT_INITIALIZED);
  const SolPubkey *key = (const SolPubkey *)(in->data + 8);
  i64 expires_at = (i64)read_u64(in->data + 40);
  Config *config = (Config *)in->accounts[CONFIG].data;
  /* the price source's key is its own: never the relayer's or the admin's */
  if (key_eq(key, &config->relayer) || key_eq(key, &config->admin)) return fail(ERR_ROLES_NOT_DISTINCT);
  for (u8 i = 0; i < rules->signer_count && i < MAX_PRICE_SIGNERS; i++) {
    if (key_eq(&rules->signers[i].key, key)) {
      rules->signers[i].expires_at = expires_at;
      return 0;
    }
  }
  if (rules->signer_count >= MAX_PRICE_SIGNERS) return fail(ERR_TOO_MANY_PRICE_SIGNERS);
  PriceSigner *slot = &rules->signers[rules->signer_count];
  key_copy(&slot->key, key);
  slot->expires_at = expires_at;
  slot->last_entry_seq = 0;
  rules->signer_count++;
  return 0;
}

u64 remove_price_signer(const Input *in) {
  PriceRules *rules;
  u64 err = load_rules_as_admin(in, 8 + 32, &rules);
  if (err) return err;
  if (rules == NULL) return fail(ERR_NOT_INITIALIZED);
  const SolPubkey *key = (const SolPubkey *)(in->data + 8);
  for (u8 i = 0; i < rules->signer_count && i < MAX_PRICE_SIGNERS; i++) {
    if (key_eq(&rules->signers[i].key, key)) {
      u8 last = rules->signer_count - 1;
      if (i != last) bytes_copy((u8 *)&rules->signers[i], (const u8 *)&rules->signers[last], sizeof(PriceSigner));
      u8 *gone = (u8 *)&rules->signers[last];
      for (u64 b = 0; b < sizeof(PriceSigner); b++) gone[b] = 0;
      rules->signer_count = last;
      return 0;
    }
  }
  return fail(ERR_UNTRUSTED_PRICE_SIGNER);
}

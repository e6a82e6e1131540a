/* set_relayer: the admin names a new relayer (never the admin itself: the roles stay apart). Bets
 * already placed keep their payer, so their rent still returns to the relayer that paid it. */
#include "errors.h"
#include "events.h"
#include "instructions.h"

enum { CONFIG, ADMIN, ACCOUNT_COUNT };

u64 set_relayer(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8 + 32) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolPubkey *new_relayer = (const SolPubkey *)(in->data + 8);
  Config *config;
  u64 err = load_admin_config(in, CONFIG, ADMIN, &config);
  if (err) return err;
  if (key_eq(new_relayer, &config->admin)) return fail(ERR_ROLES_NOT_DISTINCT);
  emit_relayer_set(&config->relayer, new_relayer);
  key_copy(&config->relayer, new_relayer);
  return 0;
}

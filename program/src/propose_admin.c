/* propose_admin: first step of an admin change; the admin names a successor who must accept
 * (so a typo cannot lose the admin role). Proposing the zero key cancels a pending change. */
#include "errors.h"
#include "events.h"
#include "instructions.h"

enum { CONFIG, ADMIN, ACCOUNT_COUNT };

u64 propose_admin(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8 + 32) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolPubkey *proposed = (const SolPubkey *)(in->data + 8);
  Config *config;
  u64 err = load_admin_config(in, CONFIG, ADMIN, &config);
  if (err) return err;
  if (!key_is_zero(proposed) && key_eq(proposed, &config->relayer)) return fail(ERR_ROLES_NOT_DISTINCT);
  key_copy(&config->pending_admin, proposed);
  emit_admin_proposed(&config->admin, proposed);
  return 0;
}

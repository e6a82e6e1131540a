/* accept_admin: second step of an admin change; the pending admin signs and becomes the admin,
 * unless it has become the relayer in the meantime. */
#include "errors.h"
#include "events.h"
#include "instructions.h"

enum { CONFIG, NEW_ADMIN, ACCOUNT_COUNT };

u64 accept_admin(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *config_account = &in->accounts[CONFIG];
  const SolAccountInfo *new_admin = &in->accounts[NEW_ADMIN];
  u64 err;
  if ((err = require_signer(new_admin))) return err;
  if ((err = require_writable(config_account))) return err;
  Config *config;
  if ((err = load_config(config_account, in->program_id, &config))) return err;
  if (key_is_zero(&config->pending_admin)) return fail(ERR_NO_PENDING_ADMIN);
  if (!key_eq(new_admin->key, &config->pending_admin)) return fail(ERR_NOT_PENDING_ADMIN);
  if (key_eq(new_admin->key, &config->relayer)) return fail(ERR_ROLES_NOT_DISTINCT);
  emit_admin_accepted(&config->admin, new_admin->key);
  key_copy(&config->admin, new_admin->key);
  key_copy(&config->pending_admin, &SYSTEM_PROGRAM_ID);
  return 0;
}

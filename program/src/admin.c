/* The check every admin instruction starts with: the admin signed and the config is writable. */
#include "errors.h"
#include "instructions.h"

u64 load_admin_config(const Input *in, int config_index, int admin_index, Config **out) {
  const SolAccountInfo *config_account = &in->accounts[config_index];
  const SolAccountInfo *admin = &in->accounts[admin_index];
  u64 err;
  if ((err = require_signer(admin))) return err;
  if ((err = require_writable(config_account))) return err;
  if ((err = load_config(config_account, in->program_id, out))) return err;
  return key_eq(admin->key, &(*out)->admin) ? 0 : fail(ERR_UNAUTHORIZED);
}

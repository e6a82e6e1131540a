/* set_paused: the admin stops (1) or resumes (0) bet intake; settlement keeps running. */
#include "errors.h"
#include "instructions.h"

enum { CONFIG, ADMIN, ACCOUNT_COUNT };

u64 set_paused(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8 + 1 || in->data[8] > 1) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *config_account = &in->accounts[CONFIG];
  const SolAccountInfo *admin = &in->accounts[ADMIN];
  u64 err;
  if ((err = require_signer(admin))) return err;
  if ((err = require_writable(config_account))) return err;
  Config *config;
  if ((err = load_config(config_account, in->program_id, &config))) return err;
  if (!key_eq(admin->key, &config->admin)) return fail(ERR_UNAUTHORIZED);
  config->paused = in->data[8];
  return 0;
}

/* set_paused: the admin stops (1) or resumes (0) bet intake only; close_bet, refund_expired,
 * reclaim_bet and close_bettor keep working while paused, so no stake is held by a pause. */
#include "errors.h"
#include "events.h"
#include "instructions.h"

enum { CONFIG, ADMIN, ACCOUNT_COUNT };

u64 set_paused(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8 + 1 || in->data[8] > 1) return fail(ERR_INVALID_INSTRUCTION_DATA);
  Config *config;
  u64 err = load_admin_config(in, CONFIG, ADMIN, &config);
  if (err) return err;
  config->paused = in->data[8];
  emit_paused_set(config->paused);
  return 0;
}

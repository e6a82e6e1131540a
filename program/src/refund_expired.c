/* refund_expired: anyone may give a bettor back exactly the stake of an open bet that nobody
 * settled by expire_time + refund_after_seconds, so a stake is never locked by a missing relayer.
 * The bet ends as refunded (status 3) with exit_price = entry_price. */
#include "bets.h"
#include "errors.h"
#include "events.h"
#include "instructions.h"
#include "vault.h"

enum { CONFIG, BET, BETTOR_STATE, BETTOR_TOKEN, VAULT, TOKEN_PROGRAM, ACCOUNT_COUNT };

u64 refund_expired(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *config_account = &in->accounts[CONFIG];
  const SolAccountInfo *bet_account = &in->accounts[BET];
  const SolAccountInfo *state_account = &in->accounts[BETTOR_STATE];
  const SolAccountInfo *bettor_token = &in->accounts[BETTOR_TOKEN];
  const SolAccountInfo *vault = &in->accounts[VAULT];
  u64 err;

  if ((err = require_writable(config_account))) return err;
  if ((err = require_writable(bet_account))) return err;
  if ((err = require_writable(state_account))) return err;
  if ((err = require_writable(bettor_token))) return err;
  if ((err = require_writable(vault))) return err;
  if ((err = require_program(&in->accounts[TOKEN_PROGRAM], &TOKEN_PROGRAM_ID))) return err;

  Config *config;
  if ((err = load_config(config_account, in->program_id, &config))) return err;
  Bet *bet;
  if ((err = load_bet(in, bet_account, &bet))) return err;
  if (bet->status != BET_STATUS_OPEN) return fail(ERR_BET_ALREADY_CLOSED);
  i64 refund_from;
  if (!checked_add_i64(bet->expire_time, config->refund_after_seconds, &refund_from)) return fail(ERR_MATH_OVERFLOW);
  SolClock clock;
  sol_get_clock_sysvar(&clock);
  if (clock.unix_timestamp < refund_from) return fail(ERR_REFUND_NOT_YET_ALLOWED);

  BettorState *state;
  if ((err = load_open_bet_state(in, state_account, bet, &state))) return err;
  TokenAccount *vault_token;
  if ((err = load_vault(vault, config, &vault_token))) return err;
  if ((err = load_payee(bettor_token, config, &bet->bettor))) return err;
  if (vault_token->amount < bet->amount) return fail(ERR_VAULT_INSUFFICIENT);
  if ((err = pay_from_vault(config_account, config, vault, bettor_token, bet->amount))) return err;
  if ((err = end_bet(config, bet, state, BET_STATUS_REFUNDED, bet->entry_price))) return err;
  emit_bet_refunded(bet);
  return 0;
}

/* Loading bets and bettor states, and ending an open bet (see bets.h). */
#include "bets.h"
#include "errors.h"

u64 load_bet(const Input *in, const SolAccountInfo *account, Bet **out) {
  static const u8 disc[8] = DISC_BET;
  if (!key_eq(account->owner, in->program_id)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(account) != sizeof(Bet) || !bytes_eq(account->data, disc, 8))
    return fail(ERR_INVALID_ACCOUNT_DATA);
  Bet *bet = (Bet *)account->data;
  u8 seq[8];
  write_u64(seq, bet->seq);
  const SolSignerSeed seeds[4] = {{(const u8 *)"bet", 3}, {bet->bettor.x, 32}, {seq, 8}, {&bet->bump, 1}};
  u64 err = require_pda(account, seeds, 4, in->program_id);
  if (err) return err;
  *out = bet;
  return 0;
}

u64 load_bettor_state(const Input *in, const SolAccountInfo *account, BettorState **out) {
  static const u8 disc[8] = DISC_BETTOR_STATE;
  if (!key_eq(account->owner, in->program_id)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(account) != sizeof(BettorState) || !bytes_eq(account->data, disc, 8))
    return fail(ERR_INVALID_ACCOUNT_DATA);
  BettorState *state = (BettorState *)account->data;
  const SolSignerSeed seeds[3] = {{(const u8 *)"bettor", 6}, {state->bettor.x, 32}, {&state->bump, 1}};
  u64 err = require_pda(account, seeds, 3, in->program_id);
  if (err) return err;
  *out = state;
  return 0;
}

u64 load_open_bet_state(const Input *in, const SolAccountInfo *account, const Bet *bet, BettorState **out) {
  BettorState *state;
  u64 err = load_bettor_state(in, account, &state);
  if (err) return err;
  if (!key_eq(&state->bettor, &bet->bettor)) return fail(ERR_BETTOR_MISMATCH);
  if (!state->has_open_bet || state->open_bet_id != bet->id) return fail(ERR_INVALID_ACCOUNT_DATA);
  *out = state;
  return 0;
}

u64 win_payout(const Config *config, u64 amount, u64 *payout) {
  u64 gross;
  if (!checked_mul(amount, config->multiplier_bps, &gross)) return fail(ERR_MATH_OVERFLOW);
  *payout = gross / 10000;
  return 0;
}

u64 end_bet(Config *config, Bet *bet, BettorState *state, u8 status, u64 exit_price) {
  u64 payout, liability;
  u64 err = win_payout(config, bet->amount, &payout);
  if (err) return err;
  if (!checked_sub(config->open_liability, payout, &liability)) return fail(ERR_MATH_OVERFLOW);
  config->open_liability = liability;
  bet->exit_price = exit_price;
  bet->status = status;
  state->has_open_bet = 0;
  state->open_bet_id = 0;
  return 0;
}

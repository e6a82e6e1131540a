/* The bet and bettor-state accounts as every settling instruction reads them, and the
 * bookkeeping a bet leaves behind when it stops being open. */
#ifndef UPDOWN_BETS_H
#define UPDOWN_BETS_H
#include "accounts.h"

/* The bet: ours, well-formed, at ["bet", bet.bettor, bet.seq, bet.bump]. */
u64 load_bet(const Input *in, const SolAccountInfo *account, Bet **out);
/* A bettor state: ours, well-formed, at ["bettor", state.bettor, state.bump]. */
u64 load_bettor_state(const Input *in, const SolAccountInfo *account, BettorState **out);
/* The bettor state of `bet`'s bettor, holding `bet` as its open bet. */
u64 load_open_bet_state(const Input *in, const SolAccountInfo *account, const Bet *bet, BettorState **out);

/* What a win on `amount` pays: amount * multiplier_bps / 10000 (also what an open bet adds to the liability). */
u64 win_payout(const Config *config, u64 amount, u64 *payout);

/* Ends an open bet: records status and exit price, clears the bettor's open bet and takes the
 * bet's win payout off config.open_liability (an underflow is an error). */
u64 end_bet(Config *config, Bet *bet, BettorState *state, u8 status, u64 exit_price);

#endif

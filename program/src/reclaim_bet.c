/* reclaim_bet: the relayer closes a settled bet account and returns its rent to whoever paid it
 * (bet.payer), so bet accounts do not pile up; the bettor state counts it in `reclaimed`. */
#include "bets.h"
#include "errors.h"
#include "events.h"
#include "instructions.h"

enum { CONFIG, BET, BETTOR_STATE, PAYER, RELAYER, ACCOUNT_COUNT };

u64 reclaim_bet(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *bet_account = &in->accounts[BET];
  const SolAccountInfo *state_account = &in->accounts[BETTOR_STATE];
  const SolAccountInfo *payer = &in->accounts[PAYER];
  const SolAccountInfo *relayer = &in->accounts[RELAYER];
  u64 err;

  if ((err = require_signer(relayer))) return err;
  if ((err = require_writable(bet_account))) return err;
  if ((err = require_writable(state_account))) return err;
  if ((err = require_writable(payer))) return err;

  Config *config;
  if ((err = load_config(&in->accounts[CONFIG], in->program_id, &config))) return err;
  if (!key_eq(relayer->key, &config->relayer)) return fail(ERR_UNAUTHORIZED);
  Bet *bet;
  if ((err = load_bet(in, bet_account, &bet))) return err;
  if (bet->status == BET_STATUS_OPEN) return fail(ERR_BET_STILL_OPEN);
  BettorState *state;
  if ((err = load_bettor_state(in, state_account, &state))) return err;
  if (!key_eq(&state->bettor, &bet->bettor)) return fail(ERR_BETTOR_MISMATCH);
  /* Every live bet account of this state has seq < bet_count, and at most bet_count get reclaimed. */
  if (bet->seq >= state->bet_count || state->reclaimed >= state->bet_count) return fail(ERR_INVALID_ACCOUNT_DATA);
  if (!key_eq(payer->key, &bet->payer)) return fail(ERR_PAYER_MISMATCH);

  emit_bet_reclaimed(bet);
  state->reclaimed += 1;
  return close_program_account(bet_account, payer);
}

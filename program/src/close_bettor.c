/* close_bettor: the relayer closes an idle bettor state (no open bet, every bet account
 * reclaimed) and returns its rent to state.payer. Since all earlier bet accounts of the bettor are
 * gone, a state created again from bet_count 0 never meets an old bet address. */
#include "bets.h"
#include "errors.h"
#include "events.h"
#include "instructions.h"

enum { CONFIG, BETTOR_STATE, PAYER, RELAYER, ACCOUNT_COUNT };

u64 close_bettor(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *state_account = &in->accounts[BETTOR_STATE];
  const SolAccountInfo *payer = &in->accounts[PAYER];
  const SolAccountInfo *relayer = &in->accounts[RELAYER];
  u64 err;

  if ((err = require_signer(relayer))) return err;
  if ((err = require_writable(state_account))) return err;
  if ((err = require_writable(payer))) return err;

  Config *config;
  if ((err = load_config(&in->accounts[CONFIG], in->program_id, &config))) return err;
  if (!key_eq(relayer->key, &config->relayer)) return fail(ERR_UNAUTHORIZED);
  BettorState *state;
  if ((err = load_bettor_state(in, state_account, &state))) return err;
  if (state->has_open_bet || state->reclaimed != state->bet_count) return fail(ERR_BETTOR_NOT_IDLE);
  if (!key_eq(payer->key, &state->payer)) return fail(ERR_PAYER_MISMATCH);

  emit_bettor_closed(state);
  return close_program_account(state_account, payer);
}

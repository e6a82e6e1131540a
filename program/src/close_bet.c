/* close_bet: settles an expired open bet at its exit price: attested by the relayer, or, with signed
 * prices on, pinned by two consecutive ticks of one signer that straddle the expiry, verified by an
 * Ed25519 instruction earlier in the transaction (docs/decisions.md#signed-prices). UP wins on exit > entry,
 * DOWN on exit < entry, a tie refunds exactly the stake; a win pays amount * multiplier_bps / 10000
 * from the vault, signed by the config PDA. Clears the bettor's open bet (so a replay can follow
 * in the same transaction). The bettor's token account is only checked when something is paid,
 * so a bettor who closed it cannot block the settlement of a lost bet. */
#include "bets.h"
#include "errors.h"
#include "events.h"
#include "instructions.h"
#include "prices.h"
#include "vault.h"

enum { CONFIG, BET, BETTOR_STATE, BETTOR_TOKEN, VAULT, RELAYER, TOKEN_PROGRAM, PRICE_RULES, INSTRUCTIONS, ACCOUNT_COUNT };

/* Outcome of `bet` at `exit_price`: status and what the vault pays the bettor. */
static u64 outcome(const Config *config, const Bet *bet, u64 exit_price, u8 *status, u64 *pay) {
  bool up_wins = exit_price > bet->entry_price;
  bool down_wins = exit_price < bet->entry_price;
  if (!up_wins && !down_wins) {
    *status = BET_STATUS_REFUNDED;
    *pay = bet->amount;
    return 0;
  }
  if ((bet->side == SIDE_UP && up_wins) || (bet->side == SIDE_DOWN && down_wins)) {
    *status = BET_STATUS_PAYOUT_DONE;
    return win_payout(config, bet->amount, pay);
  }
  *status = BET_STATUS_HOUSE_WON;
  *pay = 0;
  return 0;
}

u64 close_bet(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8 + 8 + 3) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *config_account = &in->accounts[CONFIG];
  const SolAccountInfo *bet_account = &in->accounts[BET];
  const SolAccountInfo *state_account = &in->accounts[BETTOR_STATE];
  const SolAccountInfo *bettor_token = &in->accounts[BETTOR_TOKEN];
  const SolAccountInfo *vault = &in->accounts[VAULT];
  const SolAccountInfo *relayer = &in->accounts[RELAYER];
  u64 exit_price = read_u64(in->data + 8);
  u64 err;

  if ((err = require_signer(relayer))) return err;
  if ((err = require_writable(config_account))) return err;
  if ((err = require_writable(bet_account))) return err;
  if ((err = require_writable(state_account))) return err;
  if ((err = require_writable(vault))) return err;
  if ((err = require_program(&in->accounts[TOKEN_PROGRAM], &TOKEN_PROGRAM_ID))) return err;

  Config *config;
  if ((err = load_config(config_account, in->program_id, &config))) return err;
  if (!key_eq(relayer->key, &config->relayer)) return fail(ERR_UNAUTHORIZED);
  if (exit_price == 0) return fail(ERR_INVALID_PRICE);

  Bet *bet;
  if ((err = load_bet(in, bet_account, &bet))) return err;
  if (bet->status != BET_STATUS_OPEN) return fail(ERR_BET_ALREADY_CLOSED);
  SolClock clock;
  sol_get_clock_sysvar(&clock);
  if (clock.unix_timestamp < bet->expire_time) return fail(ERR_BET_NOT_EXPIRED);
  PriceRules *rules;
  if ((err = load_price_rules(&in->accounts[PRICE_RULES], in->program_id, &rules))) return err;
#if !(SKIP_CHECKS & SKIP_TICK_REQUIRED)
  if (signed_prices_required(rules)) {
    const ExitTicks ticks = {{in->data[16], in->data[17]}, {in->data[16], in->data[18]}, clock.unix_timestamp, bet->expire_time, exit_price};
    if ((err = check_exit_ticks(&in->accounts[INSTRUCTIONS], rules, &ticks))) return err;
  }
#endif

  BettorState *state;
  if ((err = load_open_bet_state(in, state_account, bet, &state))) return err;
  TokenAccount *vault_token;
  if ((err = load_vault(vault, config, &vault_token))) return err;

  u8 status;
  u64 pay;
  if ((err = outcome(config, bet, exit_price, &status, &pay))) return err;
  if (pay > 0) {
    if ((err = require_writable(bettor_token))) return err;
    if ((err = load_payee(bettor_token, config, &bet->bettor))) return err;
    if (vault_token->amount < pay) return fail(ERR_VAULT_INSUFFICIENT);
    if ((err = pay_from_vault(config_account, config, vault, bettor_token, pay))) return err;
  }
  if ((err = end_bet(config, bet, state, status, exit_price))) return err;
  emit_bet_closed(bet, pay);
  return 0;
}

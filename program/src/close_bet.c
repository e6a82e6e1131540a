/* close_bet: settles an expired open bet from the attested exit price. UP wins on exit > entry,
 * DOWN on exit < entry, a tie refunds exactly the stake; a win pays amount * multiplier_bps / 10000
 * from the vault, signed by the config PDA. Clears the bettor's open bet (so a replay can follow
 * in the same transaction). */
#include "cpi.h"
#include "errors.h"
#include "instructions.h"

enum { CONFIG, BET, BETTOR_STATE, BETTOR_TOKEN, VAULT, RELAYER, TOKEN_PROGRAM, ACCOUNT_COUNT };

static void write_le64(u8 *p, u64 v) {
  for (int i = 0; i < 8; i++) p[i] = (u8)(v >> (8 * i));
}

/* The bet: ours, well-formed, at ["bet", id, bump]. */
static u64 load_bet(const Input *in, const SolAccountInfo *account, Bet **out) {
  static const u8 disc[8] = DISC_BET;
  if (!key_eq(account->owner, in->program_id)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(account) != sizeof(Bet) || !bytes_eq(account->data, disc, 8))
    return fail(ERR_INVALID_ACCOUNT_DATA);
  Bet *bet = (Bet *)account->data;
  u8 id_bytes[8];
  write_le64(id_bytes, bet->id);
  const SolSignerSeed seeds[3] = {{(const u8 *)"bet", 3}, {id_bytes, 8}, {&bet->bump, 1}};
  u64 err = require_pda(account, seeds, 3, in->program_id);
  if (err) return err;
  *out = bet;
  return 0;
}

/* The bettor state of the bet's bettor: ours, well-formed, at ["bettor", bet.bettor, bump]. */
static u64 load_bettor_state(const Input *in, const SolAccountInfo *account, const Bet *bet, BettorState **out) {
  static const u8 disc[8] = DISC_BETTOR_STATE;
  if (!key_eq(account->owner, in->program_id)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(account) != sizeof(BettorState) || !bytes_eq(account->data, disc, 8))
    return fail(ERR_INVALID_ACCOUNT_DATA);
  BettorState *state = (BettorState *)account->data;
  if (!key_eq(&state->bettor, &bet->bettor)) return fail(ERR_BETTOR_MISMATCH);
  const SolSignerSeed seeds[3] = {{(const u8 *)"bettor", 6}, {state->bettor.x, 32}, {&state->bump, 1}};
  u64 err = require_pda(account, seeds, 3, in->program_id);
  if (err) return err;
  *out = state;
  return 0;
}

u64 close_bet(const Input *in) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8 + 8) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *config_account = &in->accounts[CONFIG];
  const SolAccountInfo *bet_account = &in->accounts[BET];
  const SolAccountInfo *state_account = &in->accounts[BETTOR_STATE];
  const SolAccountInfo *bettor_token = &in->accounts[BETTOR_TOKEN];
  const SolAccountInfo *vault = &in->accounts[VAULT];
  const SolAccountInfo *relayer = &in->accounts[RELAYER];
  u64 exit_price = read_u64(in->data + 8);
  u64 err;

  if ((err = require_signer(relayer))) return err;
  if ((err = require_writable(bet_account))) return err;
  if ((err = require_writable(state_account))) return err;
  if ((err = require_writable(bettor_token))) return err;
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

  BettorState *state;
  if ((err = load_bettor_state(in, state_account, bet, &state))) return err;
  if (!state->has_open_bet || state->open_bet_id != bet->id) return fail(ERR_INVALID_ACCOUNT_DATA);

  if (!key_eq(vault->key, &config->vault)) return fail(ERR_INVALID_VAULT);
  TokenAccount *vault_token;
  if ((err = load_token_account(vault, &vault_token))) return err;
  TokenAccount *token;
  if ((err = load_token_account(bettor_token, &token))) return err;
  if (!key_eq(&token->mint, &config->mint)) return fail(ERR_INVALID_MINT);
  if (!key_eq(&token->owner, &bet->bettor)) return fail(ERR_BETTOR_MISMATCH);

  u8 status;
  u64 pay = 0;
  bool up_wins = exit_price > bet->entry_price;
  bool down_wins = exit_price < bet->entry_price;
  if (!up_wins && !down_wins) {
    status = BET_STATUS_REFUNDED;
    pay = bet->amount;
  } else if ((bet->side == SIDE_UP && up_wins) || (bet->side == SIDE_DOWN && down_wins)) {
    status = BET_STATUS_PAYOUT_DONE;
    u64 gross;
    if (!checked_mul(bet->amount, config->multiplier_bps, &gross)) return fail(ERR_MATH_OVERFLOW);
    pay = gross / 10000;
  } else {
    status = BET_STATUS_HOUSE_WON;
  }

  if (pay > 0) {
    if (vault_token->amount < pay) return fail(ERR_VAULT_INSUFFICIENT);
    const SolSignerSeed seeds[2] = {{(const u8 *)"config", 6}, {&config->bump, 1}};
    const SolSignerSeeds signer = {seeds, 2};
    if ((err = token_transfer(vault, bettor_token, config_account, pay, &signer))) return err;
  }

  bet->exit_price = exit_price;
  bet->status = status;
  state->has_open_bet = 0;
  state->open_bet_id = 0;
  return 0;
}

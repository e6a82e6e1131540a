/* place_bet / place_bet_delegated: opens bet `bet_id` for the bettor, moving the stake
 * bettor_token -> vault; one open bet per bettor, enforced by the bettor PDA. */
#include "cpi.h"
#include "errors.h"
#include "instructions.h"

enum { CONFIG, BET, BETTOR_STATE, BETTOR, BETTOR_TOKEN, VAULT, RELAYER, TOKEN_PROGRAM, SYSTEM_PROGRAM, ACCOUNT_COUNT };

static void write_le64(u8 *p, u64 v) {
  for (int i = 0; i < 8; i++) p[i] = (u8)(v >> (8 * i));
}

/* The stake's source: owned by the bettor, of the config mint, and (delegated) spendable by the relayer. */
static u64 check_bettor_token(const Input *in, const Config *config, u64 amount, bool delegated) {
  TokenAccount *token;
  u64 err = load_token_account(&in->accounts[BETTOR_TOKEN], &token);
  if (err) return err;
  if (!key_eq(&token->mint, &config->mint)) return fail(ERR_INVALID_MINT);
  if (!key_eq(&token->owner, in->accounts[BETTOR].key)) return fail(ERR_INVALID_TOKEN_OWNER);
  if (delegated) {
    SolPubkey delegate;
    bytes_copy(delegate.x, token->delegate.x, 32);
    if (token->delegate_tag != 1 || !key_eq(&delegate, in->accounts[RELAYER].key) || token->delegated_amount < amount)
      return fail(ERR_DELEGATE_MISSING);
  }
  return 0;
}

/* Existing bettor state: ours, well-formed, at ["bettor", bettor, bump], and without an open bet. */
static u64 check_existing_bettor_state(const Input *in, const SolAccountInfo *account) {
  static const u8 disc[8] = DISC_BETTOR_STATE;
  if (account_data_len(account) != sizeof(BettorState) || !bytes_eq(account->data, disc, 8))
    return fail(ERR_INVALID_ACCOUNT_DATA);
  BettorState *state = (BettorState *)account->data;
  const SolSignerSeed seeds[3] = {{(const u8 *)"bettor", 6}, {in->accounts[BETTOR].key->x, 32}, {&state->bump, 1}};
  u64 err = require_pda(account, seeds, 3, in->program_id);
  if (err) return err;
  if (!key_eq(&state->bettor, in->accounts[BETTOR].key)) return fail(ERR_BETTOR_MISMATCH);
  if (state->has_open_bet) return fail(ERR_OPEN_BET_EXISTS);
  return 0;
}

u64 place_bet(const Input *in, bool delegated) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  if (in->data_len != 8 + 8 + 1 + 8 + 8) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *config_account = &in->accounts[CONFIG];
  const SolAccountInfo *bet_account = &in->accounts[BET];
  const SolAccountInfo *state_account = &in->accounts[BETTOR_STATE];
  const SolAccountInfo *bettor = &in->accounts[BETTOR];
  const SolAccountInfo *bettor_token = &in->accounts[BETTOR_TOKEN];
  const SolAccountInfo *vault = &in->accounts[VAULT];
  const SolAccountInfo *relayer = &in->accounts[RELAYER];
  u64 bet_id = read_u64(in->data + 8);
  u8 side = in->data[16];
  u64 amount = read_u64(in->data + 17);
  u64 entry_price = read_u64(in->data + 25);
  u64 err;

  if ((err = require_signer(relayer))) return err;
  if (!delegated && (err = require_signer(bettor))) return err;
  if ((err = require_writable(config_account))) return err;
  if ((err = require_writable(bet_account))) return err;
  if ((err = require_writable(state_account))) return err;
  if ((err = require_writable(bettor_token))) return err;
  if ((err = require_writable(vault))) return err;
  if ((err = require_writable(relayer))) return err;
  if ((err = require_program(&in->accounts[TOKEN_PROGRAM], &TOKEN_PROGRAM_ID))) return err;
  if ((err = require_program(&in->accounts[SYSTEM_PROGRAM], &SYSTEM_PROGRAM_ID))) return err;

  Config *config;
  if ((err = load_config(config_account, in->program_id, &config))) return err;
  if (!key_eq(relayer->key, &config->relayer)) return fail(ERR_UNAUTHORIZED);
  if (config->paused) return fail(ERR_PAUSED);

  if (side != SIDE_UP && side != SIDE_DOWN) return fail(ERR_INVALID_SIDE);
  if (entry_price == 0) return fail(ERR_INVALID_PRICE);
  if (amount < config->min_amount) return fail(ERR_AMOUNT_TOO_SMALL);
  if (amount > config->max_amount) return fail(ERR_AMOUNT_TOO_LARGE);
  /* A bet that could never be paid out must not open: amount * multiplier_bps has to fit. */
  u64 gross;
  if (!checked_mul(amount, config->multiplier_bps, &gross)) return fail(ERR_MATH_OVERFLOW);

  if (!key_eq(vault->key, &config->vault)) return fail(ERR_INVALID_VAULT);
  TokenAccount *vault_token;
  if ((err = load_token_account(vault, &vault_token))) return err;
  if ((err = check_bettor_token(in, config, amount, delegated))) return err;

  bool new_bettor = false;
  u8 bettor_bump = 0;
  if (key_eq(state_account->owner, in->program_id)) {
    if ((err = check_existing_bettor_state(in, state_account))) return err;
  } else if (key_eq(state_account->owner, &SYSTEM_PROGRAM_ID)) {
    const SolSignerSeed seeds[2] = {{(const u8 *)"bettor", 6}, {bettor->key->x, 32}};
    if ((err = require_canonical_pda(state_account, seeds, 2, in->program_id, &bettor_bump))) return err;
    if (account_data_len(state_account) != 0) return fail(ERR_INVALID_ACCOUNT_DATA);
    new_bettor = true;
  } else {
    return fail(ERR_INVALID_ACCOUNT_OWNER);
  }

  if (bet_id != config->next_bet_id) return fail(ERR_BET_ID_MISMATCH);
  if (config->next_bet_id == U64_MAX) return fail(ERR_MATH_OVERFLOW);
  u8 id_bytes[8];
  write_le64(id_bytes, bet_id);
  u8 bet_bump;
  const SolSignerSeed bet_seeds[3] = {{(const u8 *)"bet", 3}, {id_bytes, 8}, {&bet_bump, 1}};
  if ((err = require_canonical_pda(bet_account, bet_seeds, 2, in->program_id, &bet_bump))) return err;
  if (!key_eq(bet_account->owner, &SYSTEM_PROGRAM_ID)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(bet_account) != 0) return fail(ERR_INVALID_ACCOUNT_DATA);

  SolClock clock;
  sol_get_clock_sysvar(&clock);
  i64 expire_time = clock.unix_timestamp + config->expiry_seconds;
  if (expire_time < clock.unix_timestamp) return fail(ERR_MATH_OVERFLOW);

  /* Stake first: the signer (or the relayer as delegate) authorises the token program. */
  if ((err = token_transfer(bettor_token, vault, delegated ? relayer : bettor, amount, NULL))) return err;

  if (new_bettor) {
    const SolSignerSeed seeds[3] = {{(const u8 *)"bettor", 6}, {bettor->key->x, 32}, {&bettor_bump, 1}};
    const SolSignerSeeds signer = {seeds, 3};
    if ((err = create_pda_account(relayer, state_account, sizeof(BettorState), in->program_id, &signer))) return err;
    static const u8 disc[8] = DISC_BETTOR_STATE;
    BettorState *fresh = (BettorState *)state_account->data;
    bytes_copy(fresh->discriminator, disc, 8);
    key_copy(&fresh->bettor, bettor->key);
    fresh->bets_placed = 0;
    fresh->bump = bettor_bump;
  }
  const SolSignerSeeds bet_signer = {bet_seeds, 3};
  if ((err = create_pda_account(relayer, bet_account, sizeof(Bet), in->program_id, &bet_signer))) return err;

  static const u8 bet_disc[8] = DISC_BET;
  Bet *bet = (Bet *)bet_account->data;
  bytes_copy(bet->discriminator, bet_disc, 8);
  bet->id = bet_id;
  key_copy(&bet->bettor, bettor->key);
  bet->side = side;
  bet->amount = amount;
  bet->entry_price = entry_price;
  bet->exit_price = 0;
  bet->bet_time = clock.unix_timestamp;
  bet->expire_time = expire_time;
  bet->status = BET_STATUS_OPEN;
  bet->bump = bet_bump;

  BettorState *state = (BettorState *)state_account->data;
  state->open_bet_id = bet_id;
  state->has_open_bet = 1;
  state->bets_placed += 1;

  config->counter += 1;
  config->next_bet_id = bet_id + 1;
  return 0;
}

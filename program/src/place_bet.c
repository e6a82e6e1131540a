/* place_bet / place_bet_delegated: opens a bet for the bettor at ["bet", bettor, seq] (seq = the
 * bettor state's bet_count), moving the stake bettor_token -> vault; one open bet per bettor,
 * enforced by the bettor PDA. The vault, stake included, must cover every open bet's win payout.
 * With signed prices on, the entry price is a tick verified by an Ed25519 instruction earlier in
 * the transaction (docs/decisions.md#signed-prices). A delegated placement needs the bettor's
 * signed intent for exactly this bet, verified the same way (docs/decisions.md#bet-intents). */
#include "bets.h"
#include "cpi.h"
#include "errors.h"
#include "events.h"
#include "instructions.h"
#include "intents.h"
#include "vault.h"

#define PLACE_DATA_LEN (8 + 1 + 8 + 8 + 2)
#define PLACE_DELEGATED_DATA_LEN (PLACE_DATA_LEN + 2 + 8)

enum { CONFIG, BET, BETTOR_STATE, BETTOR, BETTOR_TOKEN, VAULT, RELAYER, TOKEN_PROGRAM, SYSTEM_PROGRAM, PRICE_RULES, INSTRUCTIONS, ACCOUNT_COUNT };

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

/* The vault after taking the stake must hold the win payouts of all open bets, this one included. */
static u64 check_solvency(const Config *config, u64 vault_balance, u64 amount, u64 payout, u64 *liability) {
  u64 covered;
  if (!checked_add(config->open_liability, payout, liability)) return fail(ERR_MATH_OVERFLOW);
  if (!checked_add(vault_balance, amount, &covered)) return fail(ERR_MATH_OVERFLOW);
  return covered < *liability ? fail(ERR_VAULT_CANNOT_COVER) : 0;
}

/* Records `bet` as the bettor's open bet, creating the bettor state first (rent paid by the
 * relayer) when `new_state_bump` is given. */
static u64 record_open_bet(const Input *in, const Bet *bet, const u8 *new_state_bump) {
  const SolAccountInfo *state_account = &in->accounts[BETTOR_STATE];
  const SolAccountInfo *bettor = &in->accounts[BETTOR];
  const SolAccountInfo *relayer = &in->accounts[RELAYER];
  if (new_state_bump != NULL) {
    const SolSignerSeed seeds[3] = {{(const u8 *)"bettor", 6}, {bettor->key->x, 32}, {new_state_bump, 1}};
    const SolSignerSeeds signer = {seeds, 3};
    u64 err = create_pda_account(relayer, state_account, sizeof(BettorState), in->program_id, &signer);
    if (err) return err;
    static const u8 disc[8] = DISC_BETTOR_STATE;
    BettorState *fresh = (BettorState *)state_account->data;
    bytes_copy(fresh->discriminator, disc, 8);
    key_copy(&fresh->bettor, bettor->key);
    key_copy(&fresh->payer, relayer->key);
    fresh->bet_count = 0;
    fresh->reclaimed = 0;
    fresh->bump = *new_state_bump;
  }
  BettorState *state = (BettorState *)state_account->data;
  state->open_bet_id = bet->id;
  state->has_open_bet = 1;
  state->bet_count = bet->seq + 1; /* seq < U64_MAX was checked */
  return 0;
}

u64 place_bet(const Input *in, bool delegated) {
  if (in->count < ACCOUNT_COUNT) return fail(ERR_NOT_ENOUGH_ACCOUNTS);
  /* place_bet: discriminator, side, amount, entry_price, tick ref; place_bet_delegated adds the
   * intent ref and its valid-until time */
  if (in->data_len != (delegated ? PLACE_DELEGATED_DATA_LEN : PLACE_DATA_LEN)) return fail(ERR_INVALID_INSTRUCTION_DATA);
  const SolAccountInfo *config_account = &in->accounts[CONFIG];
  const SolAccountInfo *bet_account = &in->accounts[BET];
  const SolAccountInfo *state_account = &in->accounts[BETTOR_STATE];
  const SolAccountInfo *bettor = &in->accounts[BETTOR];
  const SolAccountInfo *bettor_token = &in->accounts[BETTOR_TOKEN];
  const SolAccountInfo *vault = &in->accounts[VAULT];
  const SolAccountInfo *relayer = &in->accounts[RELAYER];
  u8 side = in->data[8];
  u64 amount = read_u64(in->data + 9);
  u64 entry_price = read_u64(in->data + 17);
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
  SolClock clock;
  sol_get_clock_sysvar(&clock);
  PriceRules *rules;
  if ((err = load_price_rules(&in->accounts[PRICE_RULES], in->program_id, &rules))) return err;
#if !(SKIP_CHECKS & SKIP_TICK_REQUIRED)
  if (signed_prices_required(rules)) {
    if ((err = require_writable(&in->accounts[PRICE_RULES]))) return err;
    const TickRef ref = {in->data[25], in->data[26]};
    if ((err = check_entry_tick(&in->accounts[INSTRUCTIONS], ref, rules, clock.unix_timestamp, entry_price))) return err;
  }
#endif

  if (side != SIDE_UP && side != SIDE_DOWN) return fail(ERR_INVALID_SIDE);
  if (entry_price == 0) return fail(ERR_INVALID_PRICE);
  if (amount < config->min_amount) return fail(ERR_AMOUNT_TOO_SMALL);
  if (amount > config->max_amount) return fail(ERR_AMOUNT_TOO_LARGE);
  /* A bet that could never be paid out must not open: amount * multiplier_bps has to fit. */
  u64 payout;
  if ((err = win_payout(config, amount, &payout))) return err;

  TokenAccount *vault_token;
  if ((err = load_vault(vault, config, &vault_token))) return err;
  if ((err = check_bettor_token(in, config, amount, delegated))) return err;

  u64 seq = 0;
  u8 state_bump = 0;
  bool new_bettor = false;
  if (key_eq(state_account->owner, in->program_id)) {
    if ((err = check_existing_bettor_state(in, state_account))) return err;
    seq = ((const BettorState *)state_account->data)->bet_count;
  } else if (key_eq(state_account->owner, &SYSTEM_PROGRAM_ID)) {
    const SolSignerSeed seeds[2] = {{(const u8 *)"bettor", 6}, {bettor->key->x, 32}};
    if ((err = require_canonical_pda(state_account, seeds, 2, in->program_id, &state_bump))) return err;
    if (account_data_len(state_account) != 0) return fail(ERR_INVALID_ACCOUNT_DATA);
    new_bettor = true;
  } else {
    return fail(ERR_INVALID_ACCOUNT_OWNER);
  }

#if !(SKIP_CHECKS & SKIP_INTENT_REQUIRED)
  if (delegated) {
    /* after place_bet's data: intent_instruction, intent_signature, valid_until */
    const u8 *intent = in->data + PLACE_DATA_LEN;
    const IntentTerms terms = {in->program_id, config_account->key, bettor->key, side, amount, seq, (i64)read_u64(intent + 2)};
    const Ed25519Ref ref = {intent[0], intent[1]};
    if ((err = check_intent(&in->accounts[INSTRUCTIONS], ref, &terms, clock.unix_timestamp))) return err;
  }
#endif

  u64 liability;
  if ((err = check_solvency(config, vault_token->amount, amount, payout, &liability))) return err;
  u64 id = config->next_bet_id, next_id, counter;
  if (!checked_add(id, 1, &next_id) || !checked_add(config->counter, 1, &counter) || seq == U64_MAX)
    return fail(ERR_MATH_OVERFLOW);

  u8 seq_bytes[8];
  write_u64(seq_bytes, seq);
  u8 bet_bump;
  const SolSignerSeed bet_seeds[4] = {{(const u8 *)"bet", 3}, {bettor->key->x, 32}, {seq_bytes, 8}, {&bet_bump, 1}};
  if ((err = require_canonical_pda(bet_account, bet_seeds, 3, in->program_id, &bet_bump))) return err;
  if (!key_eq(bet_account->owner, &SYSTEM_PROGRAM_ID)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(bet_account) != 0) return fail(ERR_INVALID_ACCOUNT_DATA);

  i64 expire_time;
  if (!checked_add_i64(clock.unix_timestamp, config->expiry_seconds, &expire_time)) return fail(ERR_MATH_OVERFLOW);

  /* Stake first: the signer (or the relayer as delegate) authorises the token program. */
  if ((err = token_transfer(bettor_token, vault, delegated ? relayer : bettor, amount, NULL))) return err;
  const SolSignerSeeds bet_signer = {bet_seeds, 4};
  if ((err = create_pda_account(relayer, bet_account, sizeof(Bet), in->program_id, &bet_signer))) return err;

  static const u8 bet_disc[8] = DISC_BET;
  Bet *bet = (Bet *)bet_account->data;
  bytes_copy(bet->discriminator, bet_disc, 8);
  bet->id = id;
  key_copy(&bet->bettor, bettor->key);
  key_copy(&bet->payer, relayer->key);
  bet->seq = seq;
  bet->side = side;
  bet->amount = amount;
  bet->entry_price = entry_price;
  bet->exit_price = 0;
  bet->bet_time = clock.unix_timestamp;
  bet->expire_time = expire_time;
  bet->status = BET_STATUS_OPEN;
  bet->bump = bet_bump;
  if ((err = record_open_bet(in, bet, new_bettor ? &state_bump : NULL))) return err;

  config->counter = counter;
  config->next_bet_id = next_id;
  config->open_liability = liability;
  emit_bet_placed(bet);
  return 0;
}

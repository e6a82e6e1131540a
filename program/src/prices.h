/* Signed prices (docs/decisions.md#signed-prices): the price rules account beside the config, and
 * reading a tick that an Ed25519 program instruction earlier in the same transaction verified,
 * through the instructions sysvar (the pattern of Pyth Lazer's Solana verifier). Bet intents
 * (intents.h) are read through the same record reading. */
#ifndef UPDOWN_PRICES_H
#define UPDOWN_PRICES_H
#include "accounts.h"

/* Test builds leave one check out to show it is what stops an attack (program/build/build.ts). */
#ifndef SKIP_CHECKS
#define SKIP_CHECKS 0
#endif
#define SKIP_SYSVAR_KEY (1 << 0)
#define SKIP_EARLIER (1 << 1)
#define SKIP_ED25519_PROGRAM (1 << 2)
#define SKIP_OWN_DATA (1 << 3)
#define SKIP_DOMAIN (1 << 4)
#define SKIP_TRUSTED (1 << 5)
#define SKIP_EXPIRY (1 << 6)
#define SKIP_PRICE_MATCH (1 << 7)
#define SKIP_ENTRY_AGE (1 << 8)
#define SKIP_ENTRY_REPLAY (1 << 9)
#define SKIP_STRADDLE (1 << 10)
#define SKIP_CONSECUTIVE (1 << 11)
#define SKIP_SAME_SIGNER (1 << 12)
#define SKIP_STALE (1 << 13)
#define SKIP_TICK_REQUIRED (1 << 14)
/* Bet intents (intents.h, docs/decisions.md#bet-intents); the record reading above serves them too. */
#define SKIP_INTENT_REQUIRED (1 << 15)
#define SKIP_INTENT_SIGNER (1 << 16)
#define SKIP_INTENT_MESSAGE (1 << 17)
#define SKIP_INTENT_EXPIRY (1 << 18)

/* A tick as the program reads it from a verified tick message. */
typedef struct {
  const SolPubkey *signer;
  PriceSigner *trusted; /* the signer's entry in the price rules */
  u64 seq;
  i64 ts_ms;
  u64 price;
} VerifiedTick;

/* Where a signed message is: the index of the Ed25519 instruction in the transaction and the index
 * of the signature record in it. */
typedef struct {
  u8 instruction;
  u8 signature;
} Ed25519Ref;
typedef Ed25519Ref TickRef;

/* What a signature record verified: the key and the message, both inside the Ed25519
 * instruction's own data as read from the instructions sysvar. */
typedef struct {
  const SolPubkey *key;
  const u8 *message;
  u64 message_len;
} VerifiedRecord;

/* The errors reading a record raises: `missing` when there is no earlier Ed25519 instruction at
 * the index, `invalid` when its record does not verify key, signature and message in its own data. */
typedef struct {
  u64 missing;
  u64 invalid;
} RecordErrors;

/* The exit price may not come from a tick more than this older than the expiry (the spec's 30 s rule). */
#define MAX_EXIT_TICK_AGE_MS 30000
/* How many ticks an entry tick may be behind the newest one a bet of its signer opened at:
 * placements of many bettors land in any order on a chain that drops and resends, so one signed a
 * moment before another may land after it; further back is a replay (docs/decisions.md#signed-prices). */
#define ENTRY_SEQ_SLACK 8

extern const SolPubkey INSTRUCTIONS_SYSVAR_ID;

/* The price rules at ["price_rules"]: *out is NULL when the account was never created (prices are
 * then attested by the relayer, as before signed prices); an error when it is not that address. */
u64 load_price_rules(const SolAccountInfo *account, const SolPubkey *program_id, PriceRules **out);

/* Whether bets need signed prices under `rules` (NULL: never created). */
bool signed_prices_required(const PriceRules *rules);

/* Reads what signature record `ref.signature` of instruction `ref.instruction` verified: `sysvar`
 * must be the instructions sysvar, and that instruction the Ed25519 program's, earlier than the one
 * running, with the record's key, signature and message in its own data. */
u64 read_ed25519_record(const SolAccountInfo *sysvar, Ed25519Ref ref, RecordErrors errors, VerifiedRecord *out);

/* Reads the tick that signature record `ref.signature` of instruction `ref.instruction` verified:
 * that instruction must be the Ed25519 program's, earlier than the one running, take its key,
 * signature and message from its own data, verify a tick message of this feed, and its key must
 * be a trusted signer unexpired at `now`. */
u64 read_verified_tick(const SolAccountInfo *sysvar, TickRef ref, PriceRules *rules, i64 now, VerifiedTick *out);

/* place_bet: the entry tick at `ref` prices the bet at `entry_price`, is at most max_entry_age_ms
 * old at `now` and not older than a tick of its signer a bet already opened at. */
u64 check_entry_tick(const SolAccountInfo *sysvar, TickRef ref, PriceRules *rules, i64 now, u64 entry_price);

/* close_bet: ticks `first` and `next` are consecutive ticks of one signer with
 * ts(first) <= expire_time < ts(next), ts(first) at most 30 s before expiry, priced `exit_price`. */
typedef struct {
  TickRef first;
  TickRef next;
  i64 now;
  i64 expire_time;
  u64 exit_price;
} ExitTicks;
u64 check_exit_ticks(const SolAccountInfo *sysvar, PriceRules *rules, const ExitTicks *q);

#endif

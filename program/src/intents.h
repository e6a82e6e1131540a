/* Bet intents (docs/decisions.md#bet-intents): a delegated placement stakes the bettor's tokens
 * only with the bettor's own signature over the text of exactly that bet, verified by an Ed25519
 * program instruction earlier in the same transaction and read back through the instructions
 * sysvar, as signed ticks are (prices.h). */
#ifndef UPDOWN_INTENTS_H
#define UPDOWN_INTENTS_H
#include "prices.h"

/* Room for the longest intent text (293 bytes: every address 44 characters, every number 20). */
#define INTENT_MAX_LEN 320

/* What an intent allows: the fields of its text, in its order. */
typedef struct {
  const SolPubkey *program;
  const SolPubkey *config;
  const SolPubkey *bettor;
  u8 side; /* SIDE_UP or SIDE_DOWN */
  u64 amount;
  u64 bet_number; /* the seq the bet opens at */
  i64 valid_until; /* unix seconds */
} IntentTerms;

/* Writes the intent text of `terms` into `out` (INTENT_MAX_LEN bytes) and returns its length:
 *   updown bet intent v1\nprogram: <base58>\nconfig: <base58>\nbettor: <base58>\nside: UP|DOWN\n
 *   amount: <decimal> units\nbet number: <decimal>\nvalid until: <decimal>
 * (adapters/chain/codec/intent.ts builds the same bytes). */
u64 intent_message(const IntentTerms *terms, u8 *out);

/* Writes the base58 text of a 32-byte key at `out` (at most 44 characters) and returns its length. */
u64 base58_key(const SolPubkey *key, u8 *out);

/* place_bet_delegated: record `ref.signature` of the Ed25519 instruction `ref.instruction` (earlier
 * in the transaction, its own data) verified the bettor's signature over the intent text of
 * `terms`, and `now` is at most its valid-until time. */
u64 check_intent(const SolAccountInfo *sysvar, Ed25519Ref ref, const IntentTerms *terms, i64 now);

#endif

/* Bet intents (see intents.h, docs/decisions.md#bet-intents). Each check can be left out of a test
 * build (-DSKIP_CHECKS=<bits>, program/build/build.ts) so the attack tests show it is the check
 * that stops each attack; the committed program is built with every check. */
#include "errors.h"
#include "intents.h"

static const u8 ALPHABET[59] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/* 58^5: a key is encoded as nine limbs of five base58 digits each (2^256 < 58^45) */
#define B58_LIMB 656356768ULL
#define B58_LIMBS 9
/* 2^(32 * (7 - i)) in base 58^5, limbs 1..8 (limb 0, the most significant, is 0 in every row):
 * the key's big-endian 32-bit word i adds word * B58_TABLE[i][j] to limb j + 1. */
static const u32 B58_TABLE[8][8] = {
    {513735, 77223048, 437087610, 300156666, 605448490, 214625350, 141436834, 379377856},
    {0, 78508, 646269101, 118408823, 91512303, 209184527, 413102373, 153715680},
    {0, 0, 11997, 486083817, 3737691, 294005210, 247894721, 289024608},
    {0, 0, 0, 1833, 324463681, 385795061, 551597588, 21339008},
    {0, 0, 0, 0, 280, 127692781, 389432875, 357132832},
    {0, 0, 0, 0, 0, 42, 537767569, 410450016},
    {0, 0, 0, 0, 0, 0, 6, 356826688},
    {0, 0, 0, 0, 0, 0, 0, 1},
};

/* Writes the n lowest base58 digits of v at out[0..n], most significant first. */
static void put_digits(u8 *out, u64 v, u64 n) {
  while (n-- > 0) {
    u64 q = v / 58;
    out[n] = ALPHABET[v - q * 58];
    v = q;
  }
}

u64 base58_key(const SolPubkey *key, u8 *out) {
  const u8 *k = key->x;
  /* the key in base 58^5 with u64 arithmetic: 36 multiply-adds, then one carry pass */
  u64 limbs[B58_LIMBS] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (u64 i = 0; i < 8; i++) {
    /* big-endian 32-bit words (SBPF loads need no alignment) */
    u64 word = __builtin_bswap32(*(const u32 *)(k + 4 * i));
    for (u64 j = i; j < 8; j++) limbs[j + 1] += word * B58_TABLE[i][j];
  }
  /* no sum reaches 2^64 (the largest bound, limb 7 with its carry, is below 0x87f9 << 48) */
  for (u64 j = B58_LIMBS - 1; j > 0; j--) {
    u64 q = limbs[j] / B58_LIMB;
    limbs[j - 1] += q;
    limbs[j] -= q * B58_LIMB;
  }
  /* each leading zero byte is a '1'; then the digits without leading zeros */
  u64 len = 0;
  while (len < 32 && k[len] == 0) out[len++] = '1';
  u64 top = 0;
  while (top < B58_LIMBS && limbs[top] == 0) top++;
  if (top == B58_LIMBS) return len;
  u64 v = limbs[top];
  u64 n = v >= 11316496 ? 5 : v >= 195112 ? 4 : v >= 3364 ? 3 : v >= 58 ? 2 : 1;
  put_digits(out + len, v, n);
  len += n;
  for (u64 j = top + 1; j < B58_LIMBS; j++, len += 5) put_digits(out + len, limbs[j], 5);
  return len;
}

/* Copies `len` bytes 8 at a time (SBPF loads and stores need no alignment). */
static u64 put(u8 *out, u64 at, const char *text, u64 len) {
  u64 i = 0;
  for (; i + 8 <= len; i += 8) *(u64 *)(out + at + i) = *(const u64 *)(text + i);
  for (; i < len; i++) out[at + i] = (u8)text[i];
  return at + len;
}

static u64 put_decimal(u8 *out, u64 at, u64 value) {
  u8 digits[20];
  u64 n = 0;
  do {
    u64 q = value / 10;
    digits[n++] = (u8)('0' + (value - q * 10));
    value = q;
  } while (value != 0);
  while (n > 0) out[at++] = digits[--n];
  return at;
}

/* Whether a[0..len] == b[0..len], compared 8 bytes at a time. */
static bool same_bytes(const u8 *a, const u8 *b, u64 len) {
  u64 i = 0;
  for (; i + 8 <= len; i += 8)
    if (*(const u64 *)(a + i) != *(const u64 *)(b + i)) return false;
  for (; i < len; i++)
    if (a[i] != b[i]) return false;
  return true;
}

#define PUT(text) at = put(out, at, text, sizeof(text) - 1)

u64 intent_message(const IntentTerms *terms, u8 *out) {
  u64 at = 0;
  PUT("updown bet intent v1\nprogram: ");
  at += base58_key(terms->program, out + at);
  PUT("\nconfig: ");
  at += base58_key(terms->config, out + at);
  PUT("\nbettor: ");
  at += base58_key(terms->bettor, out + at);
  if (terms->side == SIDE_UP)
    PUT("\nside: UP\namount: ");
  else
    PUT("\nside: DOWN\namount: ");
  at = put_decimal(out, at, terms->amount);
  PUT(" units\nbet number: ");
  at = put_decimal(out, at, terms->bet_number);
  PUT("\nvalid until: ");
  if (terms->valid_until < 0) {
    out[at++] = '-';
    at = put_decimal(out, at, (u64)0 - (u64)terms->valid_until);
  } else {
    at = put_decimal(out, at, (u64)terms->valid_until);
  }
  return at;
}

u64 check_intent(const SolAccountInfo *sysvar, Ed25519Ref ref, const IntentTerms *terms, i64 now) {
  static const RecordErrors errors = {ERR_INTENT_MISSING, ERR_INTENT_MISSING};
  VerifiedRecord record;
  u64 err = read_ed25519_record(sysvar, ref, errors, &record);
  if (err) return err;
#if !(SKIP_CHECKS & SKIP_INTENT_SIGNER)
  /* the bettor's own key signed it: neither the relayer nor anyone else can consent for it */
  if (!key_eq(record.key, terms->bettor)) return fail(ERR_INTENT_SIGNER_MISMATCH);
#endif
#if !(SKIP_CHECKS & SKIP_INTENT_MESSAGE)
  /* the text names this program, config, bettor, side, amount, bet number and valid-until: an
   * intent allows one bet, and once it opened the bet number has moved on */
  u8 expected[INTENT_MAX_LEN];
  u64 len = intent_message(terms, expected);
  if (record.message_len != len || !same_bytes(record.message, expected, len)) return fail(ERR_INTENT_MISMATCH);
#endif
#if !(SKIP_CHECKS & SKIP_INTENT_EXPIRY)
  if (now > terms->valid_until) return fail(ERR_INTENT_EXPIRED);
#else
  (void)now;
#endif
  return 0;
}

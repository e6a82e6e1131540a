/* Signed prices: the price rules account and verified ticks (see prices.h). Each check can be left
 * out of a test build (-DSKIP_CHECKS=<bits>, program/build/build.ts) so the attack tests show it
 * is the check that stops each attack; the committed program is built with every check. */
#include "errors.h"
#include "prices.h"

/* Sysvar1nstructions1111111111111111111111111 */
const SolPubkey INSTRUCTIONS_SYSVAR_ID = {{6,   167, 213, 23,  24,  123, 209, 102, 53,  218, 212, 4,   85,  253, 194, 192,
                                           193, 36,  198, 143, 33,  86,  117, 165, 219, 186, 203, 95,  8,   0,   0,   0}};
/* Ed25519SigVerify111111111111111111111111111 */
static const SolPubkey ED25519_PROGRAM_ID = {{3,   125, 70,  214, 124, 147, 251, 190, 18, 249, 66, 143, 131, 141, 64,  255,
                                              5,   112, 116, 73,  39,  244, 138, 100, 252, 202, 112, 68, 128, 0,   0,   0}};

/* The tick message (docs/decisions.md#signed-prices): tag, feed id, seq, ts ms, price x 1e8. */
#define TICK_MESSAGE_LEN 48
static const u8 TICK_DOMAIN[16] = {'U', 'P', 'D', 'O', 'W', 'N', '_', 'T', 'I', 'C', 'K', '_', 'V', '1', 0, 0};
static const u8 FEED_ID[8] = {'s', 'o', 'l', 'u', 's', 'd', 't', 0};

#define ED25519_RECORD_LEN 14
#define OWN_DATA 0xffff

u64 load_price_rules(const SolAccountInfo *account, const SolPubkey *program_id, PriceRules **out) {
  static const u8 disc[8] = DISC_PRICE_RULES;
  *out = NULL;
  if (key_eq(account->owner, &SYSTEM_PROGRAM_ID) && account_data_len(account) == 0) {
    const SolSignerSeed seeds[1] = {{(const u8 *)"price_rules", 11}};
    u8 bump;
    return require_canonical_pda(account, seeds, 1, program_id, &bump);
  }
  if (!key_eq(account->owner, program_id)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(account) != sizeof(PriceRules) || !bytes_eq(account->data, disc, 8)) return fail(ERR_INVALID_ACCOUNT_DATA);
  PriceRules *rules = (PriceRules *)account->data;
  const SolSignerSeed seeds[2] = {{(const u8 *)"price_rules", 11}, {&rules->bump, 1}};
  u64 err = require_pda(account, seeds, 2, program_id);
  if (err) return err;
  *out = rules;
  return 0;
}

bool signed_prices_required(const PriceRules *rules) {
  return rules != NULL && rules->require_signed != 0;
}

static u16 read_u16(const u8 *p) {
  return (u16)(p[0] | (p[1] << 8));
}

static i64 read_i64(const u8 *p) {
  return (i64)read_u64(p);
}

/* A field of `len` bytes at `offset` lies inside `size` bytes. */
static bool inside(u64 offset, u64 len, u64 size) {
  return offset <= size && len <= size - offset;
}

/* One instruction of the transaction as the instructions sysvar holds it. */
typedef struct {
  const SolPubkey *program;
  const u8 *data;
  u64 len;
} SysvarInstruction;

/* Instruction `index` in the instructions sysvar, or an error (`missing` when there is no such
 * instruction earlier than the one running). */
static u64 sysvar_instruction(const SolAccountInfo *sysvar, u8 index, u64 missing, SysvarInstruction *out) {
  const u8 *d = sysvar->data;
  u64 size = account_data_len(sysvar);
  if (size < 4) return fail(ERR_INVALID_INSTRUCTIONS_SYSVAR);
  u16 count = read_u16(d);
  u16 current = read_u16(d + size - 2);
  if (index >= count || !inside(2 + 2 * (u64)index, 2, size)) return fail(missing);
#if !(SKIP_CHECKS & SKIP_EARLIER)
  /* the Ed25519 instruction runs before this one: the runtime verified it before anything ran */
  if (index >= current) return fail(missing);
#endif
  u64 at = read_u16(d + 2 + 2 * (u64)index);
  if (!inside(at, 2, size)) return fail(ERR_INVALID_INSTRUCTIONS_SYSVAR);
  u64 accounts = read_u16(d + at);
  at += 2 + accounts * 33;
  if (!inside(at, 34, size)) return fail(ERR_INVALID_INSTRUCTIONS_SYSVAR);
  out->program = (const SolPubkey *)(d + at);
  out->len = read_u16(d + at + 32);
  out->data = d + at + 34;
  if (!inside(at + 34, out->len, size)) return fail(ERR_INVALID_INSTRUCTIONS_SYSVAR);
  return 0;
}

/* An index that names the Ed25519 instruction's own data. */
static bool own_data(u16 index, u8 self) {
  return index == OWN_DATA || index == self;
}

u64 read_ed25519_record(const SolAccountInfo *sysvar, Ed25519Ref ref, RecordErrors errors, VerifiedRecord *out) {
#if !(SKIP_CHECKS & SKIP_SYSVAR_KEY)
  /* a look-alike account in the sysvar's place could claim any instruction (Wormhole, 2022) */
  if (!key_eq(sysvar->key, &INSTRUCTIONS_SYSVAR_ID)) return fail(ERR_INVALID_INSTRUCTIONS_SYSVAR);
#endif
  SysvarInstruction ix;
  u64 err = sysvar_instruction(sysvar, ref.instruction, errors.missing, &ix);
  if (err) return err;
#if !(SKIP_CHECKS & SKIP_ED25519_PROGRAM)
  if (!key_eq(ix.program, &ED25519_PROGRAM_ID)) return fail(errors.missing);
#endif
  const u8 *data = ix.data;
  u64 len = ix.len;
  if (len < 2 || ref.signature >= data[0] || !inside(2 + (u64)ref.signature * ED25519_RECORD_LEN, ED25519_RECORD_LEN, len))
    return fail(errors.invalid);
  const u8 *record = data + 2 + (u64)ref.signature * ED25519_RECORD_LEN;
  u16 signature_offset = read_u16(record);
  u16 signature_index = read_u16(record + 2);
  u16 key_offset = read_u16(record + 4);
  u16 key_index = read_u16(record + 6);
  u16 message_offset = read_u16(record + 8);
  u16 message_size = read_u16(record + 10);
  u16 message_index = read_u16(record + 12);
#if !(SKIP_CHECKS & SKIP_OWN_DATA)
  /* what was verified is what is read here: key, signature and message in this instruction's data */
  if (!own_data(signature_index, ref.instruction) || !own_data(key_index, ref.instruction) || !own_data(message_index, ref.instruction))
    return fail(errors.invalid);
#else
  (void)signature_index;
  (void)key_index;
  (void)message_index;
#endif
  if (!inside(signature_offset, 64, len) || !inside(key_offset, 32, len) || !inside(message_offset, message_size, len))
    return fail(errors.invalid);
  out->key = (const SolPubkey *)(data + key_offset);
  out->message = data + message_offset;
  out->message_len = message_size;
  return 0;
}

u64 read_verified_tick(const SolAccountInfo *sysvar, TickRef ref, PriceRules *rules, i64 now, VerifiedTick *out) {
  static const RecordErrors errors = {ERR_PRICE_TICK_MISSING, ERR_INVALID_PRICE_TICK};
  VerifiedRecord record;
  u64 err = read_ed25519_record(sysvar, ref, errors, &record);
  if (err) return err;
  if (record.message_len != TICK_MESSAGE_LEN) return fail(ERR_INVALID_PRICE_TICK);
  const u8 *message = record.message;
#if !(SKIP_CHECKS & SKIP_DOMAIN)
  if (!bytes_eq(message, TICK_DOMAIN, 16) || !bytes_eq(message + 16, FEED_ID, 8)) return fail(ERR_INVALID_PRICE_TICK);
#endif
  const SolPubkey *signer = record.key;
  PriceSigner *trusted = NULL;
  for (u8 i = 0; rules != NULL && i < rules->signer_count && i < MAX_PRICE_SIGNERS; i++)
    if (key_eq(&rules->signers[i].key, signer)) trusted = &rules->signers[i];
#if !(SKIP_CHECKS & SKIP_TRUSTED)
  if (trusted == NULL) return fail(ERR_UNTRUSTED_PRICE_SIGNER);
#else
  if (trusted == NULL && rules != NULL) trusted = &rules->signers[0];
#endif
#if !(SKIP_CHECKS & SKIP_EXPIRY)
  if (trusted->expires_at <= now) return fail(ERR_UNTRUSTED_PRICE_SIGNER);
#else
  (void)now;
#endif
  out->signer = signer;
  out->trusted = trusted;
  out->seq = read_u64(message + 24);
  out->ts_ms = read_i64(message + 32);
  out->price = read_u64(message + 40);
  return 0;
}

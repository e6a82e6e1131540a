/* Input parsing and shared account checks (see accounts.h). */
#include "accounts.h"
#include "errors.h"

const SolPubkey TOKEN_PROGRAM_ID = {{6,   221, 246, 225, 215, 101, 161, 147, 217, 203, 225, 70,  206, 235, 121, 172,
                                     28,  180, 133, 237, 95,  91,  55,  145, 58,  140, 245, 133, 126, 255, 0,   169}};
const SolPubkey SYSTEM_PROGRAM_ID = {{0}};
/* BPFLoaderUpgradeab1e11111111111111111111111 */
const SolPubkey UPGRADEABLE_LOADER_ID = {{2,   168, 246, 145, 78,  136, 161, 176, 226, 16,  21, 62,  247, 99,  174, 43,
                                          0,   194, 185, 61,  22,  193, 36,  210, 192, 83,  122, 16, 4,   128, 0,   0}};

/* Bytes of spare room the runtime leaves after each account's data (SBPF v0 input layout). */
#define REALLOC_ROOM 10240

void parse_input(const u8 *serialized, Input *out) {
  const u8 *p = serialized;
  u64 count = *(const u64 *)p;
  p += 8;
  out->count = count;
  for (u64 i = 0; i < count; i++) {
    u8 dup = p[0];
    if (dup != 0xff) {
      if (i < MAX_ACCOUNTS) out->accounts[i] = out->accounts[dup];
      p += 8;
      continue;
    }
    SolAccountInfo info;
    info.is_signer = p[1] != 0;
    info.is_writable = p[2] != 0;
    info.executable = p[3] != 0;
    p += 8;
    info.key = (SolPubkey *)p;
    p += 32;
    info.owner = (SolPubkey *)p;
    p += 32;
    info.lamports = (u64 *)p;
    p += 8;
    info.data_len = *(const u64 *)p;
    p += 8;
    info.data = (u8 *)p;
    p += info.data_len + REALLOC_ROOM;
    p = (const u8 *)(((u64)p + 7) & ~7ULL);
    info.rent_epoch = *(const u64 *)p;
    p += 8;
    if (i < MAX_ACCOUNTS) out->accounts[i] = info;
  }
  out->data_len = *(const u64 *)p;
  p += 8;
  out->data = p;
  p += out->data_len;
  out->program_id = (const SolPubkey *)p;
}

/* Keys sit at 8-byte aligned offsets; SBPF loads do not require alignment anyway. */
bool key_eq(const SolPubkey *a, const SolPubkey *b) {
  const u64 *x = (const u64 *)a->x;
  const u64 *y = (const u64 *)b->x;
  return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
}

void key_copy(SolPubkey *dst, const SolPubkey *src) {
  u64 *d = (u64 *)dst->x;
  const u64 *s = (const u64 *)src->x;
  d[0] = s[0];
  d[1] = s[1];
  d[2] = s[2];
  d[3] = s[3];
}

void bytes_copy(u8 *dst, const u8 *src, u64 len) {
  for (u64 i = 0; i < len; i++) dst[i] = src[i];
}

bool bytes_eq(const u8 *a, const u8 *b, u64 len) {
  for (u64 i = 0; i < len; i++)
    if (a[i] != b[i]) return false;
  return true;
}

u64 read_u64(const u8 *p) {
  u64 v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

void write_u64(u8 *p, u64 v) {
  for (int i = 0; i < 8; i++) p[i] = (u8)(v >> (8 * i));
}

bool key_is_zero(const SolPubkey *key) { return key_eq(key, &SYSTEM_PROGRAM_ID); }

u64 account_data_len(const SolAccountInfo *account) { return *(const u64 *)(account->data - 8); }

u64 require_signer(const SolAccountInfo *account) {
  return account->is_signer ? 0 : fail(ERR_MISSING_SIGNATURE);
}

u64 require_writable(const SolAccountInfo *account) {
  return account->is_writable ? 0 : fail(ERR_ACCOUNT_NOT_WRITABLE);
}

u64 require_program(const SolAccountInfo *account, const SolPubkey *program_id) {
  return key_eq(account->key, program_id) ? 0 : fail(ERR_INVALID_PROGRAM_ID);
}

u64 require_pda(const SolAccountInfo *account, const SolSignerSeed *seeds_with_bump, int seed_count,
                const SolPubkey *program_id) {
  SolPubkey derived;
  if (sol_create_program_address(seeds_with_bump, seed_count, program_id, &derived) != 0) return fail(ERR_INVALID_PDA);
  return key_eq(&derived, account->key) ? 0 : fail(ERR_INVALID_PDA);
}

u64 require_canonical_pda(const SolAccountInfo *account, const SolSignerSeed *seeds, int seed_count,
                          const SolPubkey *program_id, u8 *bump) {
  SolPubkey derived;
  if (sol_try_find_program_address(seeds, seed_count, program_id, &derived, bump) != 0) return fail(ERR_INVALID_PDA);
  return key_eq(&derived, account->key) ? 0 : fail(ERR_INVALID_PDA);
}

u64 load_config(const SolAccountInfo *account, const SolPubkey *program_id, Config **out) {
  static const u8 disc[8] = DISC_CONFIG;
  if (key_eq(account->owner, &SYSTEM_PROGRAM_ID)) return fail(ERR_NOT_INITIALIZED);
  if (!key_eq(account->owner, program_id)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(account) != sizeof(Config) || !bytes_eq(account->data, disc, 8))
    return fail(ERR_INVALID_ACCOUNT_DATA);
  Config *config = (Config *)account->data;
  const SolSignerSeed seeds[2] = {{(const u8 *)"config", 6}, {&config->bump, 1}};
  u64 err = require_pda(account, seeds, 2, program_id);
  if (err) return err;
  *out = config;
  return 0;
}

u64 load_token_account(const SolAccountInfo *account, TokenAccount **out) {
  if (!key_eq(account->owner, &TOKEN_PROGRAM_ID)) return fail(ERR_INVALID_ACCOUNT_OWNER);
  if (account_data_len(account) != sizeof(TokenAccount)) return fail(ERR_INVALID_ACCOUNT_DATA);
  TokenAccount *token = (TokenAccount *)account->data;
  if (token->state != TOKEN_ACCOUNT_INITIALIZED) return fail(ERR_INVALID_ACCOUNT_DATA);
  *out = token;
  return 0;
}

/* Written with 32-bit halves: LLVM turns the usual `a > MAX / b` test into a 128-bit
 * multiply (__multi3), which BPF cannot call. */
bool checked_mul(u64 a, u64 b, u64 *out) {
  u64 a_hi = a >> 32, a_lo = a & 0xffffffffULL;
  u64 b_hi = b >> 32, b_lo = b & 0xffffffffULL;
  if (a_hi != 0 && b_hi != 0) return false;
  u64 cross = a_hi * b_lo + a_lo * b_hi;
  if ((cross >> 32) != 0) return false;
  u64 low = a_lo * b_lo;
  u64 result = low + (cross << 32);
  if (result < low) return false;
  *out = result;
  return true;
}

bool checked_add(u64 a, u64 b, u64 *out) {
  u64 sum = a + b;
  if (sum < a) return false;
  *out = sum;
  return true;
}

bool checked_sub(u64 a, u64 b, u64 *out) {
  if (b > a) return false;
  *out = a - b;
  return true;
}

/* Added as unsigned (wraps, defined in C); overflow when both operands share a sign the sum lacks. */
bool checked_add_i64(i64 a, i64 b, i64 *out) {
  u64 sum = (u64)a + (u64)b;
  bool a_negative = a < 0, b_negative = b < 0, sum_negative = (sum >> 63) != 0;
  if (a_negative == b_negative && sum_negative != a_negative) return false;
  *out = (i64)sum;
  return true;
}

/* The runtime reads lamports, data length and owner back from the input buffer after the call;
 * it applies the new length before the new owner, and an owner change needs zeroed data. */
u64 close_program_account(const SolAccountInfo *account, const SolAccountInfo *destination) {
  u64 err = require_writable(destination);
  if (err) return err;
  u64 credited;
  if (!checked_add(*destination->lamports, *account->lamports, &credited)) return fail(ERR_MATH_OVERFLOW);
  *destination->lamports = credited;
  *account->lamports = 0;
  u64 len = account_data_len(account);
  for (u64 i = 0; i < len; i++) account->data[i] = 0;
  *(u64 *)(account->data - 8) = 0;
  key_copy(account->owner, &SYSTEM_PROGRAM_ID);
  return 0;
}

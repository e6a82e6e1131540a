/* System Program and SPL Token CPIs (instruction layouts: system CreateAccount=0, Assign=1,
 * Transfer=2, Allocate=8 with a u32 tag; token Transfer=3 with a u8 tag). */
#include "cpi.h"
#include "accounts.h"
#include "errors.h"

#define ACCOUNT_STORAGE_OVERHEAD 128

static void write_u32(u8 *p, u32 v) {
  for (int i = 0; i < 4; i++) p[i] = (u8)(v >> (8 * i));
}

/* (overhead + space) * lamports_per_byte_year * exemption_threshold, truncated like the
 * runtime's f64 -> u64 cast, computed exactly in integers from the f64 bits. */
u64 rent_exempt_minimum(u64 space, u64 *lamports) {
  SolRent rent;
  sol_get_rent_sysvar(&rent);
  u64 bits = rent.exemption_threshold_bits;
  u64 exponent = (bits >> 52) & 0x7ff;
  u64 mantissa = bits & ((1ULL << 52) - 1);
  if ((bits >> 63) != 0 || exponent == 0x7ff) return fail(ERR_MATH_OVERFLOW);
  if (exponent == 0 && mantissa == 0) {
    *lamports = 0;
    return 0;
  }
  if (exponent != 0) mantissa |= 1ULL << 52;
  i64 shift = (i64)(exponent == 0 ? 1 : exponent) - 1023 - 52;
  while ((mantissa & 1) == 0) {
    mantissa >>= 1;
    shift++;
  }
  u64 bytes = ACCOUNT_STORAGE_OVERHEAD + space;
  u64 base, value;
  if (!checked_mul(bytes, rent.lamports_per_byte_year, &base) || !checked_mul(base, mantissa, &value))
    return fail(ERR_MATH_OVERFLOW);
  if (shift >= 0) {
    if (shift >= 64 || value > (U64_MAX >> shift)) return fail(ERR_MATH_OVERFLOW);
    value <<= shift;
  } else {
    value = -shift >= 64 ? 0 : value >> -shift;
  }
  *lamports = value;
  return 0;
}

static u64 invoke(SolPubkey *program_id, SolAccountMeta *metas, u64 meta_count, u8 *data, u64 data_len,
                  const SolAccountInfo *infos, int info_count, const SolSignerSeeds *signer) {
  SolInstruction instruction = {program_id, metas, meta_count, data, data_len};
  return sol_invoke_signed_c(&instruction, infos, info_count, signer, signer ? 1 : 0);
}

u64 create_pda_account(const SolAccountInfo *payer, const SolAccountInfo *target, u64 space,
                       const SolPubkey *owner, const SolSignerSeeds *signer) {
  u64 needed;
  u64 err = rent_exempt_minimum(space, &needed);
  if (err) return err;
  SolPubkey system_id = SYSTEM_PROGRAM_ID;
  SolAccountInfo infos[2] = {*payer, *target};
  SolAccountMeta both[2] = {{payer->key, true, true}, {target->key, true, true}};
  SolAccountMeta only_target[1] = {{target->key, true, true}};
  u8 data[52];
  u64 present = *target->lamports;
  if (present == 0) {
    write_u32(data, 0);
    write_u64(data + 4, needed);
    write_u64(data + 12, space);
    key_copy((SolPubkey *)(data + 20), owner);
    return invoke(&system_id, both, 2, data, 52, infos, 2, signer);
  }
  if (present < needed) {
    SolAccountMeta transfer_metas[2] = {{payer->key, true, true}, {target->key, true, false}};
    write_u32(data, 2);
    write_u64(data + 4, needed - present);
    err = invoke(&system_id, transfer_metas, 2, data, 12, infos, 2, NULL);
    if (err) return err;
  }
  write_u32(data, 8);
  write_u64(data + 4, space);
  err = invoke(&system_id, only_target, 1, data, 12, infos + 1, 1, signer);
  if (err) return err;
  write_u32(data, 1);
  key_copy((SolPubkey *)(data + 4), owner);
  return invoke(&system_id, only_target, 1, data, 36, infos + 1, 1, signer);
}

u64 token_transfer(const SolAccountInfo *source, const SolAccountInfo *destination, const SolAccountInfo *authority,
                   u64 amount, const SolSignerSeeds *signer) {
  SolPubkey token_id = TOKEN_PROGRAM_ID;
  SolAccountInfo infos[3] = {*source, *destination, *authority};
  SolAccountMeta metas[3] = {{source->key, true, false}, {destination->key, true, false}, {authority->key, false, true}};
  u8 data[9];
  data[0] = 3;
  write_u64(data + 1, amount);
  return invoke(&token_id, metas, 3, data, 9, infos, 3, signer);
}

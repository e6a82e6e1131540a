/* Solana runtime ABI for SBPF v0 programs written in C: the C structs the CPI and PDA
 * syscalls expect, and the syscall prototypes (resolved by name when the loader links). */
#ifndef UPDOWN_SOL_H
#define UPDOWN_SOL_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)
#define U64_MAX 0xffffffffffffffffULL

typedef struct {
  u8 x[32];
} SolPubkey;

/* One account as the C CPI ABI wants it (field order and padding are the ABI). */
typedef struct {
  SolPubkey *key;
  u64 *lamports;
  u64 data_len;
  u8 *data;
  SolPubkey *owner;
  u64 rent_epoch;
  bool is_signer;
  bool is_writable;
  bool executable;
} SolAccountInfo;

typedef struct {
  SolPubkey *pubkey;
  bool is_writable;
  bool is_signer;
} SolAccountMeta;

typedef struct {
  SolPubkey *program_id;
  SolAccountMeta *accounts;
  u64 account_len;
  u8 *data;
  u64 data_len;
} SolInstruction;

typedef struct {
  const u8 *addr;
  u64 len;
} SolSignerSeed;

typedef struct {
  const SolSignerSeed *addr;
  u64 len;
} SolSignerSeeds;

/* One slice of sol_log_data (logged base64 as "Program data: ..."). */
typedef struct {
  const u8 *addr;
  u64 len;
} SolBytes;

/* The Clock sysvar as sol_get_clock_sysvar writes it. */
typedef struct {
  u64 slot;
  i64 epoch_start_timestamp;
  u64 epoch;
  u64 leader_schedule_epoch;
  i64 unix_timestamp;
} SolClock;

/* The Rent sysvar; exemption_threshold is an f64 kept as its bits (no floats in SBPF v0). */
typedef struct {
  u64 lamports_per_byte_year;
  u64 exemption_threshold_bits;
  u8 burn_percent;
} SolRent;

void sol_log_(const char *message, u64 len);
u64 sol_invoke_signed_c(const SolInstruction *instruction, const SolAccountInfo *account_infos,
                        int account_infos_len, const SolSignerSeeds *signers_seeds, int signers_seeds_len);
u64 sol_create_program_address(const SolSignerSeed *seeds, int seeds_len, const SolPubkey *program_id,
                               SolPubkey *address);
u64 sol_try_find_program_address(const SolSignerSeed *seeds, int seeds_len, const SolPubkey *program_id,
                                 SolPubkey *address, u8 *bump_seed);
u64 sol_get_clock_sysvar(void *clock);
u64 sol_get_rent_sysvar(void *rent);
void sol_log_data(const SolBytes *slices, u64 slice_count);

#endif

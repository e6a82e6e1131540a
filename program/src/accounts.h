/* Reading the serialized input (SBPF v0 aligned layout) and the account checks every
 * instruction shares: signer, writability, owner, PDA address, and typed account data. */
#ifndef UPDOWN_ACCOUNTS_H
#define UPDOWN_ACCOUNTS_H
#include "sol.h"
#include "state.h"

#define MAX_ACCOUNTS 16

typedef struct {
  SolAccountInfo accounts[MAX_ACCOUNTS];
  u64 count;
  const u8 *data;
  u64 data_len;
  const SolPubkey *program_id;
} Input;

extern const SolPubkey TOKEN_PROGRAM_ID;
extern const SolPubkey SYSTEM_PROGRAM_ID;
extern const SolPubkey UPGRADEABLE_LOADER_ID;

void parse_input(const u8 *serialized, Input *out);

bool key_eq(const SolPubkey *a, const SolPubkey *b);
void key_copy(SolPubkey *dst, const SolPubkey *src);
void bytes_copy(u8 *dst, const u8 *src, u64 len);
bool bytes_eq(const u8 *a, const u8 *b, u64 len);
u64 read_u64(const u8 *p);
void write_u64(u8 *p, u64 v);
bool key_is_zero(const SolPubkey *key);
/* a * b, a + b, a - b: false when the result does not fit (nothing written then). */
bool checked_mul(u64 a, u64 b, u64 *out);
bool checked_add(u64 a, u64 b, u64 *out);
bool checked_sub(u64 a, u64 b, u64 *out);
/* a + b for signed times, without signed overflow in C. */
bool checked_add_i64(i64 a, i64 b, i64 *out);

/* Current data length of an account, read from the input buffer (a CPI may have changed it). */
u64 account_data_len(const SolAccountInfo *account);

u64 require_signer(const SolAccountInfo *account);
u64 require_writable(const SolAccountInfo *account);
u64 require_program(const SolAccountInfo *account, const SolPubkey *program_id);

/* Address check for a PDA whose bump is known: create_program_address(seeds + bump) == key. */
u64 require_pda(const SolAccountInfo *account, const SolSignerSeed *seeds_with_bump, int seed_count,
                const SolPubkey *program_id);
/* Address check for a PDA whose bump is not known yet; returns the canonical bump. */
u64 require_canonical_pda(const SolAccountInfo *account, const SolSignerSeed *seeds, int seed_count,
                          const SolPubkey *program_id, u8 *bump);

/* The config PDA: owned by this program, Config discriminator and size, address ["config", bump]. */
u64 load_config(const SolAccountInfo *account, const SolPubkey *program_id, Config **out);
/* An initialised SPL Token account owned by the token program. */
u64 load_token_account(const SolAccountInfo *account, TokenAccount **out);

/* Closes an account of this program: every lamport to `destination` (writable), data zeroed and
 * shrunk to 0 bytes, owner back to the System Program, so the address can be created again. */
u64 close_program_account(const SolAccountInfo *account, const SolAccountInfo *destination);

#endif

/* Byte layouts of the program's accounts (Borsh, packed, little-endian, after Anchor's
 * 8-byte discriminator) and of the SPL Token accounts the program reads. */
#ifndef UPDOWN_STATE_H
#define UPDOWN_STATE_H
#include "sol.h"

/* Discriminators: first 8 bytes of sha256("account:<Name>"), as in the IDL. */
#define DISC_CONFIG {155, 12, 170, 224, 30, 250, 204, 130}
#define DISC_BET {147, 23, 35, 59, 15, 75, 155, 32}
#define DISC_BETTOR_STATE {146, 20, 114, 154, 201, 146, 227, 166}
#define DISC_PRICE_RULES {189, 14, 83, 46, 129, 187, 245, 96}

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  SolPubkey admin;
  SolPubkey pending_admin; /* all zero: no admin change pending */
  SolPubkey relayer;
  SolPubkey mint;
  SolPubkey vault;
  u64 counter;
  u64 next_bet_id;
  u64 min_amount;
  u64 max_amount;
  u64 multiplier_bps;
  i64 expiry_seconds;
  i64 refund_after_seconds;
  u64 open_liability; /* sum of the win payouts of all open bets */
  u8 paused;
  u8 bump;
} Config;
_Static_assert(sizeof(Config) == 234, "Config layout");

#define BET_STATUS_OPEN 0
#define BET_STATUS_PAYOUT_DONE 1
#define BET_STATUS_HOUSE_WON 2
#define BET_STATUS_REFUNDED 3
#define SIDE_UP 0
#define SIDE_DOWN 1

/* Address ["bet", bettor, seq u64 LE, bump]: seq is the bettor state's bet_count at placement. */
typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  u64 id;
  SolPubkey bettor;
  SolPubkey payer; /* paid the rent; gets it back when the settled bet is reclaimed */
  u64 seq;
  u8 side;
  u64 amount;
  u64 entry_price;
  u64 exit_price;
  i64 bet_time;
  i64 expire_time;
  u8 status;
  u8 bump;
} Bet;
_Static_assert(sizeof(Bet) == 131, "Bet layout");
_Static_assert(__builtin_offsetof(Bet, status) == 129, "Bet.status offset");

/* Address ["bettor", bettor, bump]. Closable once reclaimed == bet_count and no bet is open. */
typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  SolPubkey bettor;
  SolPubkey payer;
  u64 open_bet_id;
  u8 has_open_bet;
  u64 bet_count; /* bets ever placed through this state = seq of the next bet */
  u64 reclaimed; /* settled bets of this state whose accounts were closed */
  u8 bump;
} BettorState;
_Static_assert(sizeof(BettorState) == 98, "BettorState layout");

/* A trusted price signer: its Ed25519 key, until when it is trusted (unix s), and the highest
 * sequence number of its ticks a bet has opened at (entry ticks never go back). */
typedef struct __attribute__((packed)) {
  SolPubkey key;
  i64 expires_at;
  u64 last_entry_seq;
} PriceSigner;

#define MAX_PRICE_SIGNERS 4

/* Address ["price_rules", bump], beside the config: whether bets need signed prices, how old an
 * entry tick may be, and the trusted price signers. Absent: prices are attested by the relayer. */
typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  u8 require_signed;
  u8 bump;
  u64 max_entry_age_ms;
  u8 signer_count;
  PriceSigner signers[MAX_PRICE_SIGNERS];
} PriceRules;
_Static_assert(sizeof(PriceRules) == 211, "PriceRules layout");

/* SPL Token account (165 bytes) and mint (82 bytes), as the token program stores them. */
typedef struct __attribute__((packed)) {
  SolPubkey mint;
  SolPubkey owner;
  u64 amount;
  u32 delegate_tag;
  SolPubkey delegate;
  u8 state;
  u32 is_native_tag;
  u64 is_native;
  u64 delegated_amount;
  u32 close_authority_tag;
  SolPubkey close_authority;
} TokenAccount;
_Static_assert(sizeof(TokenAccount) == 165, "TokenAccount layout");

#define TOKEN_ACCOUNT_INITIALIZED 1
#define MINT_LEN 82
#define MINT_IS_INITIALIZED_OFFSET 45

/* Upgradeable loader state (bincode, u32 LE tag first). Program: tag 2, programdata address (36
 * bytes). ProgramData: tag 3, slot u64, Option<Pubkey> upgrade authority (u8 tag + 32 bytes),
 * then the ELF. */
#define LOADER_STATE_PROGRAM 2
#define LOADER_STATE_PROGRAM_DATA 3
#define LOADER_PROGRAM_LEN 36
#define LOADER_PROGRAM_DATA_ADDRESS_OFFSET 4
#define LOADER_PROGRAM_DATA_HEADER_LEN 45
#define LOADER_AUTHORITY_TAG_OFFSET 12
#define LOADER_AUTHORITY_OFFSET 13

#endif

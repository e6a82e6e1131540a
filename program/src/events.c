/* Event layouts (packed Borsh, field for field the IDL types of the same name) and their
 * emission through sol_log_data. */
#include "events.h"
#include "accounts.h"

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  u64 id;
  SolPubkey bettor;
  u64 seq;
  u8 side;
  u64 amount;
  u64 entry_price;
  i64 expire_time;
} BetPlaced;
_Static_assert(sizeof(BetPlaced) == 81, "BetPlaced layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  u64 id;
  SolPubkey bettor;
  u8 status;
  u64 exit_price;
  u64 payout;
} BetClosed;
_Static_assert(sizeof(BetClosed) == 65, "BetClosed layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  u64 id;
  SolPubkey bettor;
  u64 amount;
} BetRefunded;
_Static_assert(sizeof(BetRefunded) == 56, "BetRefunded layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  u64 id;
  SolPubkey bettor;
} BetReclaimed;
_Static_assert(sizeof(BetReclaimed) == 48, "BetReclaimed layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  SolPubkey bettor;
  SolPubkey payer;
} BettorClosed;
_Static_assert(sizeof(BettorClosed) == 72, "BettorClosed layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  u8 paused;
} PausedSet;
_Static_assert(sizeof(PausedSet) == 9, "PausedSet layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  SolPubkey old_relayer;
  SolPubkey new_relayer;
} RelayerSet;
_Static_assert(sizeof(RelayerSet) == 72, "RelayerSet layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  SolPubkey admin;
  SolPubkey proposed;
} AdminProposed;
_Static_assert(sizeof(AdminProposed) == 72, "AdminProposed layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  SolPubkey old_admin;
  SolPubkey new_admin;
} AdminAccepted;
_Static_assert(sizeof(AdminAccepted) == 72, "AdminAccepted layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  u64 amount;
  SolPubkey destination;
} Withdrawn;
_Static_assert(sizeof(Withdrawn) == 48, "Withdrawn layout");

typedef struct __attribute__((packed)) {
  u8 discriminator[8];
  SolPubkey admin;
  SolPubkey relayer;
  SolPubkey mint;
  SolPubkey vault;
} Initialized;
_Static_assert(sizeof(Initialized) == 136, "Initialized layout");

static void emit(const void *event, u64 len) {
  const SolBytes slice = {(const u8 *)event, len};
  sol_log_data(&slice, 1);
}

void emit_bet_placed(const Bet *bet) {
  static const u8 disc[8] = DISC_EVENT_BET_PLACED;
  BetPlaced event;
  bytes_copy(event.discriminator, disc, 8);
  event.id = bet->id;
  key_copy(&event.bettor, &bet->bettor);
  event.seq = bet->seq;
  event.side = bet->side;
  event.amount = bet->amount;
  event.entry_price = bet->entry_price;
  event.expire_time = bet->expire_time;
  emit(&event, sizeof event);
}

void emit_bet_closed(const Bet *bet, u64 payout) {
  static const u8 disc[8] = DISC_EVENT_BET_CLOSED;
  BetClosed event;
  bytes_copy(event.discriminator, disc, 8);
  event.id = bet->id;
  key_copy(&event.bettor, &bet->bettor);
  event.status = bet->status;
  event.exit_price = bet->exit_price;
  event.payout = payout;
  emit(&event, sizeof event);
}

void emit_bet_refunded(const Bet *bet) {
  static const u8 disc[8] = DISC_EVENT_BET_REFUNDED;
  BetRefunded event;
  bytes_copy(event.discriminator, disc, 8);
  event.id = bet->id;
  key_copy(&event.bettor, &bet->bettor);
  event.amount = bet->amount;
  emit(&event, sizeof event);
}

void emit_bet_reclaimed(const Bet *bet) {
  static const u8 disc[8] = DISC_EVENT_BET_RECLAIMED;
  BetReclaimed event;
  bytes_copy(event.discriminator, disc, 8);
  event.id = bet->id;
  key_copy(&event.bettor, &bet->bettor);
  emit(&event, sizeof event);
}

void emit_bettor_closed(const BettorState *state) {
  static const u8 disc[8] = DISC_EVENT_BETTOR_CLOSED;
  BettorClosed event;
  bytes_copy(event.discriminator, disc, 8);
  key_copy(&event.bettor, &state->bettor);
  key_copy(&event.payer, &state->payer);
  emit(&event, sizeof event);
}

void emit_paused_set(u8 paused) {
  static const u8 disc[8] = DISC_EVENT_PAUSED_SET;
  PausedSet event;
  bytes_copy(event.discriminator, disc, 8);
  event.paused = paused;
  emit(&event, sizeof event);
}

void emit_relayer_set(const SolPubkey *old_relayer, const SolPubkey *new_relayer) {
  static const u8 disc[8] = DISC_EVENT_RELAYER_SET;
  RelayerSet event;
  bytes_copy(event.discriminator, disc, 8);
  key_copy(&event.old_relayer, old_relayer);
  key_copy(&event.new_relayer, new_relayer);
  emit(&event, sizeof event);
}

void emit_admin_proposed(const SolPubkey *admin, const SolPubkey *proposed) {
  static const u8 disc[8] = DISC_EVENT_ADMIN_PROPOSED;
  AdminProposed event;
  bytes_copy(event.discriminator, disc, 8);
  key_copy(&event.admin, admin);
  key_copy(&event.proposed, proposed);
  emit(&event, sizeof event);
}

void emit_admin_accepted(const SolPubkey *old_admin, const SolPubkey *new_admin) {
  static const u8 disc[8] = DISC_EVENT_ADMIN_ACCEPTED;
  AdminAccepted event;
  bytes_copy(event.discriminator, disc, 8);
  key_copy(&event.old_admin, old_admin);
  key_copy(&event.new_admin, new_admin);
  emit(&event, sizeof event);
}

void emit_withdrawn(u64 amount, const SolPubkey *destination) {
  static const u8 disc[8] = DISC_EVENT_WITHDRAWN;
  Withdrawn event;
  bytes_copy(event.discriminator, disc, 8);
  event.amount = amount;
  key_copy(&event.destination, destination);
  emit(&event, sizeof event);
}

void emit_initialized(const Config *config) {
  static const u8 disc[8] = DISC_EVENT_INITIALIZED;
  Initialized event;
  bytes_copy(event.discriminator, disc, 8);
  key_copy(&event.admin, &config->admin);
  key_copy(&event.relayer, &config->relayer);
  key_copy(&event.mint, &config->mint);
  key_copy(&event.vault, &config->vault);
  emit(&event, sizeof event);
}

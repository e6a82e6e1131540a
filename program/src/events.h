/* Anchor events (IDL: events[] and types[]): one sol_log_data slice per event, the 8-byte
 * discriminator sha256("event:<Name>")[..8] followed by the Borsh fields, which Anchor's
 * EventParser reads from the "Program data: <base64>" log lines. */
#ifndef UPDOWN_EVENTS_H
#define UPDOWN_EVENTS_H
#include "state.h"

#define DISC_EVENT_BET_PLACED {88, 88, 145, 226, 126, 206, 32, 0}
#define DISC_EVENT_BET_CLOSED {122, 20, 157, 254, 221, 0, 39, 129}
#define DISC_EVENT_BET_REFUNDED {32, 234, 173, 102, 106, 4, 2, 203}
#define DISC_EVENT_BET_RECLAIMED {192, 16, 115, 140, 72, 92, 60, 25}
#define DISC_EVENT_BETTOR_CLOSED {144, 8, 121, 176, 80, 163, 6, 76}
#define DISC_EVENT_PAUSED_SET {171, 125, 127, 156, 233, 81, 68, 66}
#define DISC_EVENT_RELAYER_SET {215, 1, 21, 160, 138, 169, 70, 40}
#define DISC_EVENT_ADMIN_PROPOSED {129, 249, 226, 227, 199, 82, 110, 243}
#define DISC_EVENT_ADMIN_ACCEPTED {174, 12, 76, 139, 158, 99, 110, 254}
#define DISC_EVENT_WITHDRAWN {20, 89, 223, 198, 194, 124, 219, 13}
#define DISC_EVENT_INITIALIZED {208, 213, 115, 98, 115, 82, 201, 209}

void emit_bet_placed(const Bet *bet);
void emit_bet_closed(const Bet *bet, u64 payout);
void emit_bet_refunded(const Bet *bet);
void emit_bet_reclaimed(const Bet *bet);
void emit_bettor_closed(const BettorState *state);
void emit_paused_set(u8 paused);
void emit_relayer_set(const SolPubkey *old_relayer, const SolPubkey *new_relayer);
void emit_admin_proposed(const SolPubkey *admin, const SolPubkey *proposed);
void emit_admin_accepted(const SolPubkey *old_admin, const SolPubkey *new_admin);
void emit_withdrawn(u64 amount, const SolPubkey *destination);
void emit_initialized(const Config *config);

#endif

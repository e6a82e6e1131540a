/* Program entry: parse the input, pick the instruction by its 8-byte Anchor discriminator
 * (first 8 bytes of sha256("global:<name>"), as in the IDL). */
#include "errors.h"
#include "instructions.h"

static const u8 DISC_INITIALIZE[8] = {175, 175, 109, 31, 13, 152, 155, 237};
static const u8 DISC_PLACE_BET[8] = {222, 62, 67, 220, 63, 166, 126, 33};
static const u8 DISC_PLACE_BET_DELEGATED[8] = {20, 106, 156, 50, 131, 186, 123, 110};
static const u8 DISC_CLOSE_BET[8] = {185, 206, 13, 184, 176, 108, 140, 107};
static const u8 DISC_REFUND_EXPIRED[8] = {118, 153, 164, 244, 40, 128, 242, 250};
static const u8 DISC_RECLAIM_BET[8] = {48, 55, 169, 101, 117, 111, 28, 172};
static const u8 DISC_CLOSE_BETTOR[8] = {145, 178, 9, 247, 212, 157, 8, 254};
static const u8 DISC_SET_PAUSED[8] = {91, 60, 125, 192, 176, 225, 166, 218};
static const u8 DISC_SET_RELAYER[8] = {23, 243, 33, 88, 110, 84, 196, 37};
static const u8 DISC_PROPOSE_ADMIN[8] = {121, 214, 199, 212, 87, 39, 117, 234};
static const u8 DISC_ACCEPT_ADMIN[8] = {112, 42, 45, 90, 116, 181, 13, 170};
static const u8 DISC_WITHDRAW[8] = {183, 18, 70, 156, 148, 109, 161, 34};
static const u8 DISC_SET_PRICE_RULES[8] = {50, 110, 6, 9, 92, 166, 49, 141};
static const u8 DISC_ADD_PRICE_SIGNER[8] = {116, 47, 176, 1, 161, 216, 110, 252};
static const u8 DISC_REMOVE_PRICE_SIGNER[8] = {171, 157, 85, 73, 211, 61, 66, 1};

/* Hot paths first. */
u64 entrypoint(const u8 *serialized) {
  Input in;
  parse_input(serialized, &in);
  if (in.data_len < 8) return fail(ERR_INVALID_INSTRUCTION_DATA);
  if (bytes_eq(in.data, DISC_PLACE_BET, 8)) return place_bet(&in, false);
  if (bytes_eq(in.data, DISC_CLOSE_BET, 8)) return close_bet(&in);
  if (bytes_eq(in.data, DISC_PLACE_BET_DELEGATED, 8)) return place_bet(&in, true);
  if (bytes_eq(in.data, DISC_RECLAIM_BET, 8)) return reclaim_bet(&in);
  if (bytes_eq(in.data, DISC_CLOSE_BETTOR, 8)) return close_bettor(&in);
  if (bytes_eq(in.data, DISC_REFUND_EXPIRED, 8)) return refund_expired(&in);
  if (bytes_eq(in.data, DISC_SET_PAUSED, 8)) return set_paused(&in);
  if (bytes_eq(in.data, DISC_WITHDRAW, 8)) return withdraw(&in);
  if (bytes_eq(in.data, DISC_SET_RELAYER, 8)) return set_relayer(&in);
  if (bytes_eq(in.data, DISC_PROPOSE_ADMIN, 8)) return propose_admin(&in);
  if (bytes_eq(in.data, DISC_ACCEPT_ADMIN, 8)) return accept_admin(&in);
  if (bytes_eq(in.data, DISC_SET_PRICE_RULES, 8)) return set_price_rules(&in);
  if (bytes_eq(in.data, DISC_ADD_PRICE_SIGNER, 8)) return add_price_signer(&in);
  if (bytes_eq(in.data, DISC_REMOVE_PRICE_SIGNER, 8)) return remove_price_signer(&in);
  if (bytes_eq(in.data, DISC_INITIALIZE, 8)) return initialize(&in);
  return fail(ERR_INVALID_INSTRUCTION_DATA);
}

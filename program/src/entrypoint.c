/* Program entry: parse the input, pick the instruction by its 8-byte Anchor discriminator
 * (first 8 bytes of sha256("global:<name>"), as in the IDL). */
#include "errors.h"
#include "instructions.h"

static const u8 DISC_INITIALIZE[8] = {175, 175, 109, 31, 13, 152, 155, 237};
static const u8 DISC_PLACE_BET[8] = {222, 62, 67, 220, 63, 166, 126, 33};
static const u8 DISC_PLACE_BET_DELEGATED[8] = {20, 106, 156, 50, 131, 186, 123, 110};
static const u8 DISC_CLOSE_BET[8] = {185, 206, 13, 184, 176, 108, 140, 107};
static const u8 DISC_SET_PAUSED[8] = {91, 60, 125, 192, 176, 225, 166, 218};

u64 entrypoint(const u8 *serialized) {
  Input in;
  parse_input(serialized, &in);
  if (in.data_len < 8) return fail(ERR_INVALID_INSTRUCTION_DATA);
  if (bytes_eq(in.data, DISC_PLACE_BET, 8)) return place_bet(&in, false);
  if (bytes_eq(in.data, DISC_CLOSE_BET, 8)) return close_bet(&in);
  if (bytes_eq(in.data, DISC_PLACE_BET_DELEGATED, 8)) return place_bet(&in, true);
  if (bytes_eq(in.data, DISC_SET_PAUSED, 8)) return set_paused(&in);
  if (bytes_eq(in.data, DISC_INITIALIZE, 8)) return initialize(&in);
  return fail(ERR_INVALID_INSTRUCTION_DATA);
}

/* The program's instructions (IDL: instructions[]). Each returns 0 or a custom error code. */
#ifndef UPDOWN_INSTRUCTIONS_H
#define UPDOWN_INSTRUCTIONS_H
#include "accounts.h"

u64 initialize(const Input *in);
/* `delegated`: the stake moves on the relayer's SPL delegate allowance instead of the bettor's signature. */
u64 place_bet(const Input *in, bool delegated);
u64 close_bet(const Input *in);
u64 set_paused(const Input *in);

#endif

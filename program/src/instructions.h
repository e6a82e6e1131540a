/* The program's instructions (IDL: instructions[]). Each returns 0 or a custom error code. */
#ifndef UPDOWN_INSTRUCTIONS_H
#define UPDOWN_INSTRUCTIONS_H
#include "accounts.h"

u64 initialize(const Input *in);
/* `delegated`: the stake moves on the relayer's SPL delegate allowance instead of the bettor's signature. */
u64 place_bet(const Input *in, bool delegated);
u64 close_bet(const Input *in);
u64 refund_expired(const Input *in);
u64 reclaim_bet(const Input *in);
u64 close_bettor(const Input *in);
u64 set_paused(const Input *in);
u64 set_relayer(const Input *in);
u64 propose_admin(const Input *in);
u64 accept_admin(const Input *in);
u64 withdraw(const Input *in);
u64 set_price_rules(const Input *in);
u64 add_price_signer(const Input *in);
u64 remove_price_signer(const Input *in);

/* The config, writable, with accounts[admin_index] its admin and a signer. */
u64 load_admin_config(const Input *in, int config_index, int admin_index, Config **out);
/* `signer` is the upgrade authority of this program (read from the loader's Program and ProgramData accounts). */
u64 require_upgrade_authority(const SolAccountInfo *program, const SolAccountInfo *program_data,
                              const SolAccountInfo *signer, const SolPubkey *program_id);

#endif

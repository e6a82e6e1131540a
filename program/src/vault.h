/* The vault (the config PDA's token account) and payments out of it, signed by the config PDA. */
#ifndef UPDOWN_VAULT_H
#define UPDOWN_VAULT_H
#include "accounts.h"

/* The configured vault, a live SPL Token account. */
u64 load_vault(const SolAccountInfo *account, const Config *config, TokenAccount **out);
/* A live token account of the config mint, owned by `owner` (any owner when NULL). */
u64 load_payee(const SolAccountInfo *account, const Config *config, const SolPubkey *owner);
/* Moves `amount` vault -> destination; the config PDA signs the SPL Token transfer. */
u64 pay_from_vault(const SolAccountInfo *config_account, const Config *config, const SolAccountInfo *vault,
                   const SolAccountInfo *destination, u64 amount);

#endif

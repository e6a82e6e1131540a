/* Cross-program calls: System Program account creation for PDAs, SPL Token transfers. */
#ifndef UPDOWN_CPI_H
#define UPDOWN_CPI_H
#include "sol.h"

/* Rent-exempt minimum for `space` bytes, from the Rent sysvar. */
u64 rent_exempt_minimum(u64 space, u64 *lamports);

/* Makes `target` (a PDA signed by `signer`) a `space`-byte account owned by `owner`, rent paid
 * by `payer`. Works even when someone pre-funded the address (transfer + allocate + assign). */
u64 create_pda_account(const SolAccountInfo *payer, const SolAccountInfo *target, u64 space,
                       const SolPubkey *owner, const SolSignerSeeds *signer);

/* SPL Token Transfer of `amount` from `source` to `destination` on `authority`'s approval
 * (a transaction signer, a delegate, or the PDA in `signer` when not NULL). */
u64 token_transfer(const SolAccountInfo *source, const SolAccountInfo *destination, const SolAccountInfo *authority,
                   u64 amount, const SolSignerSeeds *signer);

#endif

/**
 * The valibot schemas of the domain's words (kernel/domain.ts), declared once for every layer that
 * checks them at its edge: the side of a bet, its raw status and a base58 address.
 *
 * @example
 *   const Body = v.object({ side: SideSchema, bettor: base58Address('must be a base58 address') });
 */
import * as v from 'valibot';
import { SIDES, type BetStatus } from './domain.ts';

/** `UP` or `DOWN`. */
export const SideSchema = v.picklist(SIDES);

/** A raw contract status: 0 open, 1 payout_done, 2 house_won, 3 refunded. */
export const BetStatusSchema = v.picklist([0, 1, 2, 3] as const satisfies readonly BetStatus[]);

/** A base58 address (a Solana public key, 32 to 44 characters), checked by its characters only. */
export const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** A string that is a base58 address; `message` is the issue when it is not. */
export const base58Address = (message = 'must be a base58 address') => v.pipe(v.string(), v.regex(BASE58_ADDRESS, message));

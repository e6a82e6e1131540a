/**
 * Words of the domain that several layers share (docs/architecture.md#layers): the machines, the
 * adapters and the services all speak of a bet's side and status and of the exchange's symbols,
 * so they are declared here, below all of them.
 */

/** The direction a bet is on: `UP` or `DOWN` (docs/gateway-api.md#bet). */
export type Side = 'UP' | 'DOWN';
/** Both sides. */
export const SIDES = ['UP', 'DOWN'] as const satisfies readonly Side[];

/** Raw contract status of a bet: 0 open, 1 payout_done, 2 house_won, 3 refunded (docs/gateway-api.md#bet-status). */
export type BetStatus = 0 | 1 | 2 | 3;
/** A settled status: 1 payout_done, 2 house_won, 3 refunded. */
export type SettledStatus = Exclude<BetStatus, 0>;
/** Status names, indexed by the raw contract status. */
export const STATUS_NAMES = ['open', 'payout_done', 'house_won', 'refunded'] as const;

/** The exchange's order-book symbols (docs/exchange-api.md#symbols). */
export const BOOK_SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'] as const;
/** One of `BOOK_SYMBOLS`. */
export type BookSymbol = (typeof BOOK_SYMBOLS)[number];

/**
 * Why the gateway refuses a request, as values (style: business refusals are results, not
 * exceptions). The server maps each kind to the spec's status (section 7).
 */
export type RefusalKind =
  | 'invalid_request' // 400
  | 'not_approved' // 400: address not in the key store and the relayer is no SPL delegate
  | 'forbidden' // 403: paused, or faucet/wallet outside test mode
  | 'open_bet' // 409 {error, openBetId}
  | 'not_initialized' // 409
  | 'vault_cannot_cover' // 409: the vault could not pay every open bet if this one won too
  | 'chain_unavailable' // 500 on POST /bet (spec section 7), 503 elsewhere
  | 'no_price'; // 503

export interface GatewayRefusal {
  refused: true;
  kind: RefusalKind;
  error: string;
  openBetId?: string;
  /** what made it (a dependency's failure), for the log of a 5xx answer */
  cause?: unknown;
}

export const refusal = (kind: RefusalKind, error: string, extra: { openBetId?: string; cause?: unknown } = {}): GatewayRefusal => ({
  refused: true,
  kind,
  error,
  ...extra,
});

export const isRefusal = (x: unknown): x is GatewayRefusal => typeof x === 'object' && x !== null && (x as GatewayRefusal).refused === true;

export const REFUSAL_STATUS: Record<RefusalKind, number> = {
  invalid_request: 400,
  not_approved: 400,
  forbidden: 403,
  open_bet: 409,
  not_initialized: 409,
  vault_cannot_cover: 409,
  chain_unavailable: 503,
  no_price: 503,
};

export const MESSAGES = {
  notInitialized: 'the contract is not initialised',
  paused: 'bets are paused',
  openBet: 'the address already has an open bet; it must be closed before placing a new one',
  noPrice: 'no fresh SOL price: no tick has arrived in the last 30 s',
  chainDown: 'the chain node is unreachable',
  openBetChanging: "the address's open bet kept changing while the bet was placed; try again",
  vaultCannotCover: 'the vault cannot cover this bet: with it, the open bets could win more than the vault holds; try a smaller amount, or later',
  amountUnits: 'amountUnits must be a positive integer in token base units',
} as const;

/**
 * Why the gateway refuses a request, as values (`kernel/refusal.ts`). The server maps each code
 * to its status and body (docs/gateway-api.md#errors).
 */
import { refuse, type Refusal } from '../../kernel/refusal.ts';

export type RefusalCode =
  | 'invalid_request' // 400
  | 'not_approved' // 400: address not in the key store and the relayer is no SPL delegate
  | 'forbidden' // 403: paused, or faucet/wallet outside test mode
  | 'open_bet' // 409 {error, openBetId}
  | 'not_initialized' // 409
  | 'vault_cannot_cover' // 409: the vault could not pay every open bet if this one won too
  | 'chain_unavailable' // 500 on POST /bet (docs/gateway-api.md#errors), 503 elsewhere
  | 'outcome_unknown' // 500 {error, tx, pending: true}: sent, not confirmed in time, may still land
  | 'busy' // 503 + Retry-After: not sent (too many placements in flight, or not sent by the answer deadline); retry
  | 'no_price'; // 503

/** A refusal of the gateway; an open-bet refusal names the open bet. */
export type GatewayRefusal = Refusal<RefusalCode, { openBetId?: string; tx?: string }>;

/** A gateway refusal with `code` and `message` (and the open bet's id, the pending transaction, or the cause of an outage). */
export const refusal = (code: RefusalCode, message: string, extra: { openBetId?: string; tx?: string; cause?: unknown } = {}): GatewayRefusal =>
  refuse(code, message, extra);

export const MESSAGES = {
  notInitialized: 'the contract is not initialised',
  paused: 'bets are paused',
  openBet: 'the address already has an open bet; it must be closed before placing a new one',
  noPrice: 'no fresh SOL price: no tick has arrived in the last 30 s',
  chainDown: 'the chain node is unreachable',
  busy: 'the gateway is placing as many bets as it can land in time; nothing was sent for this one: retry after Retry-After',
  notSentInTime: 'the bet could not be sent in time and was not sent; nothing reached the chain: retry after Retry-After',
  bettorBusy: 'another gateway is landing a transaction for this address; nothing was sent for this one: retry after Retry-After',
  outcomeUnknown: 'the bet was sent to the chain and is not confirmed yet; it may still land: watch bet_open, or retry (a 409 with openBetId means it landed)',
  openBetChanging: "the address's open bet kept changing while the bet was placed; try again",
  vaultCannotCover: 'the vault cannot cover this bet: with it, the open bets could win more than the vault holds; try a smaller amount, or later',
  amountUnits: 'amountUnits must be a positive integer in token base units',
  intentRequired:
    "this address is not in the gateway key store: a bet on it needs the relayer approved as SPL Token delegate of its token account and the bettor's signed intent for this bet (intent: {signature, validUntil}; docs/gateway-api.md#bet-intents)",
  intentExpired: "the intent's validUntil has passed: sign a new one",
  intentNotSigned:
    "intent.signature is not the bettor's signature of the intent for this bet: its side, amountUnits, validUntil and the bettor's next bet number must be the ones signed (GET /api/bet-intent gives the text)",
} as const;

/**
 * Wire formats of the gateway, declared once (docs/contributing.md#style): the POST /bet bodies of
 * profiles A and B with the 400 wording of docs/gateway-api.md#bet; the price object and the
 * WebSocket events (docs/gateway-api.md#events) are the runtime's
 * (`runtime/gateway/events/schemas.ts`), re-exported here.
 *
 * @example
 *   const { address, side, amountUnits } = parseBetBodyA(body); // throws HttpError(400, {error})
 */
import { publicKeyOf } from '../../adapters/chain/account-layout.ts';
import { HttpError } from '../http/reply.ts';
import { getBase58Encoder } from '@solana/kit';
import type { BetIntent } from '../../adapters/chain/port.ts';
import type { BetRequestA } from '../../runtime/gateway/bets/place-bet.ts';
import type { Side } from '../../kernel/domain.ts';

export {
  BetClosedEventSchema,
  BetOpenEventSchema,
  BetReplayEventSchema,
  parseSequencedEvent,
  PriceEventSchema,
  PriceObjectSchema,
  ResumeMessageSchema,
  type GatewayEvent,
} from '../../runtime/gateway/events/schemas.ts';

export * from './wire-history.ts';
export * from './wire-responses.ts';

/** A body that is not JSON: 400 `invalid JSON body` (docs/gateway-api.md#path-rules); used for every JSON route. */
export const invalidJsonBody = (reason?: string): HttpError => new HttpError(400, { error: reason ? `invalid JSON body: ${reason}` : 'invalid JSON body' });

/** A validated Profile A bet request. */
export type { BetRequestA };

const AMOUNT_UNITS_ERROR = 'amountUnits must be a positive integer in token base units';

export const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `amountUnits` as a bigint: an integer sent as a decimal string or a safe-integer number, > 0. */
function parseAmountUnits(raw: unknown): bigint | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw > 0 ? BigInt(raw) : undefined;
  if (typeof raw === 'string' && /^\d{1,30}$/.test(raw)) {
    const n = BigInt(raw);
    return n > 0n ? n : undefined;
  }
  return undefined;
}

const bytesOfBase58 = getBase58Encoder();
const INTENT_ERROR = 'intent must be {signature: the base58 Ed25519 signature (64 bytes) of the intent text, validUntil: unix seconds}';

/** `intent` of a Profile A bet (docs/gateway-api.md#bet-intents): absent, or `{signature, validUntil}`. */
function parseIntent(raw: unknown): BetIntent | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw) || typeof raw.signature !== 'string') throw new HttpError(400, { error: INTENT_ERROR });
  let signature: Uint8Array;
  try {
    signature = new Uint8Array(bytesOfBase58.encode(raw.signature));
  } catch {
    throw new HttpError(400, { error: INTENT_ERROR });
  }
  const validUntil = parseAmountUnits(raw.validUntil);
  if (signature.length !== 64 || validUntil === undefined || validUntil >= 2n ** 63n) throw new HttpError(400, { error: INTENT_ERROR });
  return { signature, validUntil };
}

/** A side as Profile A and the Action take it (UP or DOWN, any case), or 400 `side must be UP or DOWN`. */
export function parseSideA(raw: unknown): Side {
  const side = typeof raw === 'string' ? raw.toUpperCase() : undefined;
  if (side !== 'UP' && side !== 'DOWN') throw new HttpError(400, { error: 'side must be UP or DOWN' });
  return side;
}

/**
 * Profile A `POST /bet` body `{address, side, amountUnits}` (docs/gateway-api.md#bet): side
 * case-insensitive, amountUnits a positive integer (string or number). Every failure is
 * HttpError 400 `{error}`; a body with `amount` instead of `amountUnits` gets the amountUnits
 * message. The min/max range is checked by the caller with `assertStakeWithin`.
 */
export function parseBetBodyA(body: unknown): BetRequestA {
  if (!isRecord(body)) throw new HttpError(400, { error: 'body must be a JSON object {address, side, amountUnits}' });
  const amountUnits = parseAmountUnits(body.amountUnits);
  if (amountUnits === undefined) {
    const hint = body.amountUnits === undefined && body.amount !== undefined ? ' (send "amountUnits", not "amount")' : '';
    throw new HttpError(400, { error: `${AMOUNT_UNITS_ERROR}${hint}` });
  }
  const side = parseSideA(body.side);
  if (typeof body.address !== 'string' || !isPublicKey(body.address)) {
    throw new HttpError(400, { error: 'address must be a base58 public key' });
  }
  const intent = parseIntent(body.intent);
  return intent ? { address: body.address, side, amountUnits, intent } : { address: body.address, side, amountUnits };
}

/** docs/gateway-api.md#bet: 400 when the amount is outside `minAmount..maxAmount` (inclusive). */
export function assertStakeWithin(amountUnits: bigint, minAmount: bigint, maxAmount: bigint): void {
  if (amountUnits < minAmount || amountUnits > maxAmount) {
    throw new HttpError(400, { error: `amountUnits must be between ${minAmount} and ${maxAmount} token base units` });
  }
}

const SIDE_B: ReadonlyMap<unknown, Side> = new Map<unknown, Side>([
  ['UP', 'UP'],
  ['up', 'UP'],
  ['Up', 'UP'],
  ['0', 'UP'],
  [0, 'UP'],
  ['DOWN', 'DOWN'],
  ['down', 'DOWN'],
  ['Down', 'DOWN'],
  ['1', 'DOWN'],
  [1, 'DOWN'],
]);

/**
 * Profile B `POST /bet` body `{side}` (docs/gateway-api.md#profile-b-post-apibet): exactly UP/up/Up/0/"0" or
 * DOWN/down/Down/1/"1"; other fields are ignored. Otherwise HttpError 400 saying it must be 0/UP or 1/DOWN.
 */
export function parseBetBodyB(body: unknown): { side: Side } {
  const side = isRecord(body) ? SIDE_B.get(body.side) : undefined;
  if (side === undefined) throw new HttpError(400, { error: 'side must be 0/UP or 1/DOWN' });
  return { side };
}

/** Whether `s` is a base58-encoded 32-byte public key. */
export function isPublicKey(s: string): boolean {
  return publicKeyOf(s) !== null;
}

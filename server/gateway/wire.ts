/**
 * Wire formats of the gateway, declared once (style rule 2): the price object, the WebSocket
 * events of spec section 6 (each broadcast with its `seq`), and the POST /bet bodies of
 * profiles A and B with the 400 wording of spec sections 4 and 7.
 *
 * @example
 *   const { address, side, amountUnits } = parseBetBodyA(body); // throws HttpError(400, {error})
 */
import { PublicKey } from '@solana/web3.js';
import * as v from 'valibot';
import { HttpError } from '../http.ts';

/** Bet direction as shown on the wire. */
export const SideSchema = v.picklist(['UP', 'DOWN']);
/** `UP` or `DOWN`. */
export type Side = v.InferOutput<typeof SideSchema>;

const WirePrice = v.pipe(v.string(), v.regex(/^\d+\.\d{8}$/, 'price must be a decimal string with 8 fraction digits'));
const UnixMs = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const UnixSeconds = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const PriceE8 = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const DecimalText = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a decimal integer string'));
const Address = v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 address'));
const Seq = v.pipe(v.number(), v.safeInteger(), v.minValue(1));

/** Price object of `GET /price` (spec section 2 "Price object"). */
export const PriceObjectSchema = v.strictObject({ symbol: v.literal('solusdt'), price: WirePrice, ts: UnixMs });
/** `{symbol, price, ts}`. */
export type PriceObject = v.InferOutput<typeof PriceObjectSchema>;

/** `price` event: each tick, and once on connect (spec section 6). */
export const PriceEventSchema = v.strictObject({ type: v.literal('price'), ...PriceObjectSchema.entries });

/** `bet_open` event (spec section 6). */
export const BetOpenEventSchema = v.strictObject({
  type: v.literal('bet_open'),
  id: DecimalText,
  bettor: Address,
  side: SideSchema,
  amountUnits: DecimalText,
  entryPrice: PriceE8,
  expireTime: UnixSeconds,
});

const STATUS_NAMES = ['open', 'payout_done', 'house_won', 'refunded'] as const;

/** `bet_closed` event (spec section 6); `statusName` must match `status`. */
export const BetClosedEventSchema = v.pipe(
  v.strictObject({
    type: v.literal('bet_closed'),
    id: DecimalText,
    bettor: Address,
    exitPrice: PriceE8,
    status: v.picklist([0, 1, 2, 3]),
    statusName: v.picklist(STATUS_NAMES),
  }),
  v.check((e) => STATUS_NAMES[e.status] === e.statusName, 'statusName does not match status'),
);

/** `bet_replay` event, Profile B only (spec section 6). */
export const BetReplayEventSchema = v.strictObject({
  type: v.literal('bet_replay'),
  id: DecimalText,
  prevId: DecimalText,
  bettor: Address,
  side: SideSchema,
  amountUnits: DecimalText,
  entryPrice: PriceE8,
  expireTime: UnixSeconds,
  replayCount: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
});

/** Every event the gateway broadcasts, before it gets its seq. */
export const GatewayEventSchema = v.variant('type', [PriceEventSchema, BetOpenEventSchema, BetClosedEventSchema, BetReplayEventSchema]);

export type PriceEvent = v.InferOutput<typeof PriceEventSchema>;
export type BetOpenEvent = v.InferOutput<typeof BetOpenEventSchema>;
export type BetClosedEvent = v.InferOutput<typeof BetClosedEventSchema>;
export type BetReplayEvent = v.InferOutput<typeof BetReplayEventSchema>;
/** Union of the broadcast events (without seq). */
export type GatewayEvent = v.InferOutput<typeof GatewayEventSchema>;

/** An event as it goes out on the socket: its fields plus `seq` (increasing, from the gateway's event log). */
export type SequencedEvent = GatewayEvent & { seq: number };

/**
 * Parses one outgoing event exactly (tests, benchmarks, stream clients): the spec fields of its
 * type and nothing else, plus a positive integer `seq`. Throws a ValiError on mismatch.
 */
export function parseSequencedEvent(raw: unknown): SequencedEvent {
  const { seq } = v.parse(v.object({ seq: Seq }), raw);
  const { seq: _seq, ...event } = raw as Record<string, unknown>;
  return { ...v.parse(GatewayEventSchema, event), seq };
}

/** Spec section 7, Profile B: "body is not JSON (error says invalid JSON body)"; used for every JSON route. */
export const invalidJsonBody = (reason?: string): HttpError => new HttpError(400, { error: reason ? `invalid JSON body: ${reason}` : 'invalid JSON body' });

/** A validated Profile A bet request. */
export interface BetRequestA {
  address: string;
  side: Side;
  amountUnits: bigint;
}

const AMOUNT_UNITS_ERROR = 'amountUnits must be a positive integer in token base units';

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `amountUnits` as a bigint: an integer sent as a decimal string or a safe-integer number, > 0. */
function parseAmountUnits(raw: unknown): bigint | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw > 0 ? BigInt(raw) : undefined;
  if (typeof raw === 'string' && /^\d{1,30}$/.test(raw)) {
    const n = BigInt(raw);
    return n > 0n ? n : undefined;
  }
  return undefined;
}

/**
 * Profile A `POST /bet` body `{address, side, amountUnits}` (spec section 4): side
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
  const side = typeof body.side === 'string' ? body.side.toUpperCase() : undefined;
  if (side !== 'UP' && side !== 'DOWN') throw new HttpError(400, { error: 'side must be UP or DOWN' });
  if (typeof body.address !== 'string' || !isPublicKey(body.address)) {
    throw new HttpError(400, { error: 'address must be a base58 public key' });
  }
  return { address: body.address, side, amountUnits };
}

/** Spec section 7: 400 when the amount is outside `minAmount..maxAmount` (inclusive). */
export function assertStakeWithin(amountUnits: bigint, minAmount: bigint, maxAmount: bigint): void {
  if (amountUnits < minAmount || amountUnits > maxAmount) {
    throw new HttpError(400, { error: `amountUnits must be between ${minAmount} and ${maxAmount} token base units` });
  }
}

const SIDE_B: ReadonlyMap<unknown, Side> = new Map<unknown, Side>([
  ['UP', 'UP'], ['up', 'UP'], ['Up', 'UP'], ['0', 'UP'], [0, 'UP'],
  ['DOWN', 'DOWN'], ['down', 'DOWN'], ['Down', 'DOWN'], ['1', 'DOWN'], [1, 'DOWN'],
]);

/**
 * Profile B `POST /bet` body `{side}` (spec section 4): exactly UP/up/Up/0/"0" or
 * DOWN/down/Down/1/"1"; other fields are ignored. Otherwise HttpError 400 saying it must be 0/UP or 1/DOWN.
 */
export function parseBetBodyB(body: unknown): { side: Side } {
  const side = isRecord(body) ? SIDE_B.get(body.side) : undefined;
  if (side === undefined) throw new HttpError(400, { error: 'side must be 0/UP or 1/DOWN' });
  return { side };
}

/** Whether `s` is a base58-encoded 32-byte public key. */
export function isPublicKey(s: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(s)) return false;
  try {
    return new PublicKey(s).toBase58() === s;
  } catch {
    return false;
  }
}

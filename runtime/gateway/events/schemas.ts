/**
 * The events the gateway broadcasts (docs/gateway-api.md#events), declared once as valibot schemas
 * below the server (docs/architecture.md#layers: domain events are declared below the server):
 * `price` from the price ingestion, and the bet events a bet series emits
 * (`machines/bet-events.ts`). Each goes out with its `seq` from the event log.
 *
 * @example
 *   const e = parseSequencedEvent(JSON.parse(frame)); // throws on any field docs/gateway-api.md#events does not list
 */
import * as v from 'valibot';
import { BetClosedEvent, BetOpenEvent, BetReplayEvent } from '../../../machines/bet-events.ts';

const WirePrice = v.pipe(v.string(), v.regex(/^\d+\.\d{8}$/, 'price must be a decimal string with 8 fraction digits'));
const UnixMs = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const Seq = v.pipe(v.number(), v.safeInteger(), v.minValue(1));

/** Price object of `GET /price` (docs/gateway-api.md#price). */
export const PriceObjectSchema = v.strictObject({ symbol: v.literal('solusdt'), price: WirePrice, ts: UnixMs });
/** `{symbol, price, ts}`. */
export type PriceObject = v.InferOutput<typeof PriceObjectSchema>;

/** `price` event: each tick, and once on connect (docs/gateway-api.md#events). */
export const PriceEventSchema = v.strictObject({ type: v.literal('price'), ...PriceObjectSchema.entries });
export type PriceEvent = v.InferOutput<typeof PriceEventSchema>;

export { BetOpenEvent as BetOpenEventSchema, BetClosedEvent as BetClosedEventSchema, BetReplayEvent as BetReplayEventSchema };

/** Every event the gateway broadcasts, before it gets its seq. */
export const GatewayEventSchema = v.union([PriceEventSchema, BetOpenEvent, BetClosedEvent, BetReplayEvent]);
/** Union of the broadcast events (without seq). */
export type GatewayEvent = v.InferOutput<typeof GatewayEventSchema>;

/** An event as it goes out on the socket: its fields plus `seq` (increasing, from the gateway's event log). */
export type SequencedEvent = GatewayEvent & { seq: number };

/**
 * Parses one outgoing event exactly (tests, benchmarks, stream clients): the fields of its type
 * (docs/gateway-api.md#events) and nothing else, plus a positive integer `seq`. Throws a ValiError
 * on mismatch.
 */
export function parseSequencedEvent(raw: unknown): SequencedEvent {
  const { seq } = v.parse(v.object({ seq: Seq }), raw);
  const { seq: _seq, ...event } = raw as Record<string, unknown>;
  return { ...v.parse(GatewayEventSchema, event), seq };
}

/** The first message after a WebSocket connect with `since` (docs/gateway-api.md#resume). */
export const ResumeMessageSchema = v.strictObject({
  type: v.literal('resume'),
  /** false: events were lost in between (or another epoch): reload the state over REST */
  recovered: v.boolean(),
  epoch: v.string(),
  /** the last seq published when the replay started */
  seq: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
});
export type ResumeMessage = v.InferOutput<typeof ResumeMessageSchema>;

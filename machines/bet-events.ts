/**
 * What a bet series tells the outside world (docs/gateway-api.md#events), declared once as valibot
 * schemas so the WebSocket server, the tests and the benchmarks agree on every field.
 *
 * @example
 *   const ev = v.parse(BetClosedEvent, raw); // { type: 'bet_closed', id, bettor, exitPrice, status, statusName }
 */
import * as v from 'valibot';
import { SIDES, STATUS_NAMES } from '../kernel/domain.ts';
import type { BetContext } from './bet-types.ts';
import { base58Address } from '../kernel/schemas.ts';

const Side = v.picklist(SIDES);
const DecimalId = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a decimal integer string'));
const Units = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a decimal integer string'));
const Address = base58Address();
const PriceX1e8 = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const UnixSeconds = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** `bet_open`: a bet was accepted (docs/gateway-api.md#events). */
export const BetOpenEvent = v.strictObject({
  type: v.literal('bet_open'),
  id: DecimalId,
  bettor: Address,
  side: Side,
  amountUnits: Units,
  entryPrice: PriceX1e8,
  expireTime: UnixSeconds,
});

/** `bet_closed`: the scheduler settled a bet, or a Profile B series ended (docs/gateway-api.md#events); `statusName` matches `status`. */
export const BetClosedEvent = v.pipe(
  v.strictObject({
    type: v.literal('bet_closed'),
    id: DecimalId,
    bettor: Address,
    exitPrice: PriceX1e8,
    status: v.picklist([0, 1, 2, 3]),
    statusName: v.picklist(STATUS_NAMES),
  }),
  v.check((e) => STATUS_NAMES[e.status] === e.statusName, 'statusName does not match status'),
);

/** `bet_replay` (Profile B): a tie was replayed as a new bet (docs/gateway-api.md#events). */
export const BetReplayEvent = v.strictObject({
  type: v.literal('bet_replay'),
  id: DecimalId,
  prevId: DecimalId,
  bettor: Address,
  side: Side,
  amountUnits: Units,
  entryPrice: PriceX1e8,
  expireTime: UnixSeconds,
  replayCount: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
});

/** Any event a bet series emits. */
export const BetEmittedEvent = v.union([BetOpenEvent, BetClosedEvent, BetReplayEvent]);

export type BetOpenEvent = v.InferOutput<typeof BetOpenEvent>;
export type BetClosedEvent = v.InferOutput<typeof BetClosedEvent>;
export type BetReplayEvent = v.InferOutput<typeof BetReplayEvent>;
export type BetEmittedEvent = v.InferOutput<typeof BetEmittedEvent>;

/** `bet_open` of the bet now in play. */
export const betOpen = (c: BetContext): BetOpenEvent => ({
  type: 'bet_open',
  id: c.id,
  bettor: c.bettor,
  side: c.side,
  amountUnits: c.amountUnits,
  entryPrice: Number(c.entryPrice),
  expireTime: c.expireTime,
});

/** `bet_closed` of the bet now in play, with the contract's status. */
export const betClosed = (c: BetContext): BetClosedEvent => ({
  type: 'bet_closed',
  id: c.id,
  bettor: c.bettor,
  exitPrice: Number(c.exitPrice ?? '0'),
  status: c.status,
  statusName: STATUS_NAMES[c.status],
});

/** `bet_replay` of the replacement now in play (`prevId` is the tied bet). */
export const betReplay = (c: BetContext): BetReplayEvent => ({
  type: 'bet_replay',
  id: c.id,
  prevId: c.prevId ?? '',
  bettor: c.bettor,
  side: c.side,
  amountUnits: c.amountUnits,
  entryPrice: Number(c.entryPrice),
  expireTime: c.expireTime,
  replayCount: c.replayCount,
});

/**
 * Price ingestion of the gateway (docs/gateway-api.md#price; the `price` event:
 * docs/gateway-api.md#events): every tick from the PriceFeed is normalised to 8 fraction digits,
 * appended to the price history and broadcast as `{type:'price', symbol, price, ts, seq}`. Keeps
 * the current price for `GET /price` and the WS connect snapshot, and answers entry/exit price
 * questions from the history with the rules of `rules.ts`.
 *
 * @example
 *   const prices = await startPriceIngestion({ feed, history, events: shell.events, logger: log });
 *   shell.events.setSnapshotSource(() => prices.snapshotEvent());
 */
import type { PriceFeed, PriceTick, Tick, Unsubscribe } from '../../../adapters/feed/port.ts';
import { verifyTick } from '../../../adapters/feed/tick-verify.ts';
import type { PriceHistory } from '../../../adapters/store/price-history/port.ts';
import type { Logger } from '../../../kernel/log.ts';
import type { PriceEvent, PriceObject } from '../events/schemas.ts';
import { decideEntryPrice, decideExitPrice, formatPrice, type EntryDecision, type ExitDecision } from './rules.ts';

/** A price event with its seq, as broadcast. */
export type SequencedPriceEvent = PriceEvent & { seq: number };

/** Where price events go (the gateway's EventStream). */
export interface PriceEventSink {
  /** `dedupId` names the tick: gateways sharing one stream that all saw it append it once */
  broadcast(event: PriceEvent, options?: { dedupId?: string }): Promise<SequencedPriceEvent>;
}

/** Dependencies of the ingestion. */
export interface PriceIngestionDeps {
  feed: PriceFeed;
  history: PriceHistory;
  events: PriceEventSink;
  logger: Logger;
  /** ticks waiting for the history/log beyond this are dropped with a warning [1000] */
  maxPending?: number;
  /** clock, unix ms [Date.now] */
  now?: () => number;
  /** starts the feed [feed.start()]; the gateway waits for it with backoff */
  start?: () => Promise<void>;
  /** ticks kept while the history store is down, stored in order once it is back [2400: 20 min at 2/s] */
  maxUnstored?: number;
  /** told each tick once it is in the history (the settler starts a run when a tick reaches an expiry) */
  stored?: (tick: { price: string; ts: number }) => void;
  /** whether an unsigned tick is refused too (the contract requires signed prices: docs/decisions.md#signed-prices) [never] */
  requireSigned?: () => boolean;
  /** told of each tick refused for its signature: `forged` (a signature that does not verify) or `unsigned` (when signed prices are required) */
  refused?: (reason: 'forged' | 'unsigned') => void;
}

/** A tick stamped further ahead of our clock than this is refused: it would push every real tick out of the history's retention window. */
export const MAX_TICK_FUTURE_SKEW_MS = 60_000;

/** The running ingestion. */
export interface PriceService {
  /** The price object of `GET /price` (highest ts seen, or the history's latest after a restart); undefined until a tick exists. */
  current(): PriceObject | undefined;
  /** The tick with the highest ts seen, in signed form when it was signed (the entry tick of a bet: docs/decisions.md#signed-prices). */
  currentTick(): Tick | undefined;
  /** The last broadcast price event with the highest ts: the WS connect snapshot. */
  snapshotEvent(): SequencedPriceEvent | undefined;
  /** Ticks refused for their signature since start: forged, and unsigned while signed prices are required. */
  refusedTicks(): { forged: number; unsigned: number };
  /** Resolves when every tick received so far is stored and broadcast (tests, shutdown). */
  settled(): Promise<void>;
  /** Unsubscribes and stops the feed. */
  stop(): Promise<void>;
}

/** Subscribes to `feed`, seeds the current price from the history, then starts the feed. */
export async function startPriceIngestion(deps: PriceIngestionDeps): Promise<PriceService> {
  const { feed, history, events, logger } = deps;
  const maxPending = deps.maxPending ?? 1000;
  const now = deps.now ?? Date.now;
  const seeded = await history.latest();
  let current: PriceObject | undefined = seeded && { symbol: 'solusdt', price: seeded.price, ts: seeded.ts };
  let currentTick: Tick | undefined = seeded;
  let snapshot: SequencedPriceEvent | undefined;
  let pending = 0;
  let tail: Promise<void> = Promise.resolve();
  let storing: Promise<void> = Promise.resolve();
  // ticks the history store could not take yet (it is down): stored first, in order, once it is back,
  // so no newer tick is ever stored while an older one is missing (exit prices stay exact)
  const unstored: Tick[] = [];
  const maxUnstored = deps.maxUnstored ?? 2_400;
  let historyDown = false;
  let streamDown = false;

  const refusedTicks = { forged: 0, unsigned: 0 };
  // a tick is checked before it enters the history; a forged one is never used, an unsigned one
  // only while the contract takes prices without signatures (docs/decisions.md#signed-prices)
  const signatureRefusal = (tick: Tick): 'forged' | 'unsigned' | null => {
    const check = verifyTick(tick);
    if (check === 'forged') return 'forged';
    if (check === 'unsigned' && deps.requireSigned?.()) return 'unsigned';
    return null;
  };

  const store = async (tick: Tick): Promise<void> => {
    unstored.push(tick);
    if (unstored.length > maxUnstored) unstored.splice(0, unstored.length - maxUnstored);
    try {
      while (unstored.length > 0) {
        const next = unstored[0] as Tick;
        await history.append(next);
        unstored.shift();
        deps.stored?.(next);
      }
      if (historyDown) logger.info('price history store reachable again; the ticks it missed are stored');
      historyDown = false;
    } catch (err) {
      if (!historyDown)
        logger.error({ err: err instanceof Error ? err.message : err }, 'price history store unavailable; ticks are kept and stored once it is back');
      historyDown = true;
    }
  };

  // Appends start in arrival order and run side by side (docs/architecture.md#resumes-from-memory):
  // a tick waits for neither the history nor the previous tick's append, so a loaded loop
  // publishes several ticks in one turn (one write per socket for all of them), never falls
  // behind one round trip per tick.
  const broadcastTick = async (tick: { price: string; ts: number }): Promise<void> => {
    try {
      const event = await events.broadcast({ type: 'price', symbol: 'solusdt', price: tick.price, ts: tick.ts }, { dedupId: `price:${tick.ts}:${tick.price}` });
      if (!snapshot || event.ts >= snapshot.ts) snapshot = event;
      if (streamDown) logger.info('event log reachable again; price events flow');
      streamDown = false;
    } catch (err) {
      if (!streamDown)
        logger.error({ err: err instanceof Error ? err.message : err }, 'event log unavailable; price events are not broadcast until it is back');
      streamDown = true;
    }
  };

  const onTick = (raw: PriceTick): void => {
    const tick = normalise(raw);
    if (!tick) {
      logger.warn({ tick: raw }, 'malformed price tick dropped');
      return;
    }
    const refusal = signatureRefusal(tick);
    if (refusal) {
      refusedTicks[refusal]++;
      deps.refused?.(refusal);
      // every 100th after the first keeps a steady stream of bad ticks from flooding the log
      if (refusedTicks[refusal] % 100 === 1)
        logger.warn(
          { tick: raw, reason: refusal, count: refusedTicks[refusal] },
          'price tick refused: its signature does not verify, or it has none while signed prices are required',
        );
      return;
    }
    if (tick.ts > now() + MAX_TICK_FUTURE_SKEW_MS) {
      logger.warn({ tick: raw, now: now() }, 'price tick stamped in the future dropped');
      return;
    }
    if (pending >= maxPending) {
      logger.warn({ pending, tick }, 'price ingestion backlog full; tick dropped');
      return;
    }
    if (!current || tick.ts >= current.ts) {
      current = { symbol: 'solusdt', price: tick.price, ts: tick.ts };
      currentTick = tick;
    }
    pending++;
    // the history takes ticks one at a time, in order; the stream's appends start now, in order
    storing = storing.then(() => store(tick));
    const done = Promise.all([storing, broadcastTick(tick)])
      .catch((err: unknown) => logger.error({ err, tick }, 'price tick not broadcast'))
      .finally(() => {
        pending--;
      });
    tail = tail.then(async () => void (await done));
  };

  const unsubscribe: Unsubscribe = feed.onTick(onTick);
  await (deps.start ?? (() => feed.start()))();
  return {
    current: () => current,
    currentTick: () => currentTick,
    snapshotEvent: () => snapshot,
    refusedTicks: () => ({ ...refusedTicks }),
    settled: () => tail,
    async stop() {
      unsubscribe();
      await feed.stop();
      await tail;
    },
  };
}

/** A tick with an 8-digit price and an integer ms ts (and its signature, kept as it came), or undefined for a malformed one. */
function normalise(raw: PriceTick): Tick | undefined {
  if (raw.symbol !== 'solusdt' || !Number.isSafeInteger(raw.ts) || raw.ts <= 0) return undefined;
  try {
    const price = formatPrice(raw.price);
    return raw.signed ? { price, ts: raw.ts, signed: raw.signed } : { price, ts: raw.ts };
  } catch {
    return undefined;
  }
}

/** Entry price for a bet asked for at `nowMs` (docs/decisions.md#entry-and-exit-prices: latest tick, refused past 30 s). */
export async function entryPriceNow(history: PriceHistory, nowMs: number): Promise<EntryDecision> {
  return decideEntryPrice(await history.latest(), nowMs);
}

/** Exit price of a bet expiring at `expireTime` (unix s), decided at `nowMs` (docs/decisions.md#entry-and-exit-prices; see `decideExitPrice`). */
export async function exitPriceAt(history: PriceHistory, expireTime: number, nowMs: number, signed = false): Promise<ExitDecision> {
  const [atOrBefore, latest] = await Promise.all([history.atOrBefore(expireTime * 1000), history.latest()]);
  return decideExitPrice({ expireTime, nowMs, atOrBefore, latest, signed });
}

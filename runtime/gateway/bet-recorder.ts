/**
 * Writes the bet history (`BetHistoryStore`) as bets open and close: the gateway hands it every
 * committed bet event (`bet_open`, `bet_replay`, `bet_closed`) in order, and the transaction
 * signatures as the effects learn them (`placed`, `closedBy`, `replacedBy`, `refunding`). Writes
 * run one at a time, in event order; a failed write is logged and skipped (the history is
 * evidence for people, the chain and the event log stay the truth). Records older than
 * `GW_HISTORY_DAYS` are pruned hourly.
 *
 * @example
 *   const recorder = betRecorder({ store, history, source: 'synthetic', multiplierBps, log });
 *   publish: (events) => { recorder.record(events); stream.deliver(events); }
 */
import type { BetHistoryStore, BetRecord } from '../../adapters/store/bet-history.ts';
import type { Sequenced } from '../../adapters/store/event-log.ts';
import type { PriceHistory } from '../../adapters/store/price-history.ts';
import type { BetClosedEvent, BetEmittedEvent, BetOpenEvent, BetReplayEvent } from '../../machines/bet-events.ts';
import type { Logger } from '../log.ts';
import { entryEvidence, exitEvidence, ticksAroundExpiry } from './bet-evidence.ts';

/** What the recorder is built from. */
export interface BetRecorderDeps {
  store: BetHistoryStore;
  history: PriceHistory;
  /** where prices come from, e.g. `nats:market.price.solusdt` or `synthetic` */
  source: string;
  /** the contract's payout multiplier (net result of a win) */
  multiplierBps(): Promise<bigint>;
  log: Logger;
  /** days a record is kept */
  retentionDays: number;
  /** unix ms [Date.now] */
  now?: () => number;
}

/** The running recorder. */
export interface BetRecorder {
  /** Records committed bet events (in the order given). */
  record(events: ReadonlyArray<Sequenced<BetEmittedEvent>>): void;
  /** The placement transaction of bet `id` (POST /bet). */
  placed(id: string, signature: string): void;
  /** The close transaction of bet `id`. */
  closedBy(id: string, signature: string): void;
  /** Profile B: the close_bet + place_bet transaction that replaced tied bet `prevId` by `nextId`. */
  replacedBy(prevId: string, nextId: string, signature: string): void;
  /** Bet `id` is being refunded at its entry price because no usable price came. */
  refunding(id: string): void;
  /** Resolves once every write queued so far is done. */
  flushed(): Promise<void>;
  /** Deletes records older than the retention; returns how many. */
  prune(): Promise<number>;
  /** Starts hourly pruning (and prunes once now). */
  startPruning(intervalMs?: number): void;
  stop(): Promise<void>;
}

const DAY_MS = 86_400_000;
/** Notes about bets whose events have not come yet are forgotten past this many. */
const MAX_NOTES = 10_000;

/** Net result in token base units of a settled bet. */
export function netUnits(status: 1 | 2 | 3, amountUnits: string, multiplierBps: bigint): string {
  const amount = BigInt(amountUnits);
  if (status === 1) return ((amount * multiplierBps) / 10_000n - amount).toString();
  return status === 2 ? (-amount).toString() : '0';
}

/** Creates the recorder. */
export function betRecorder(deps: BetRecorderDeps): BetRecorder {
  const now = deps.now ?? Date.now;
  const placeTx = new Map<string, string>();
  const closeTx = new Map<string, string>();
  const refunds = new Set<string>();
  let tail: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;

  const note = <T>(map: Map<string, T>, id: string, value: T): void => {
    map.set(id, value);
    if (map.size > MAX_NOTES) map.delete(map.keys().next().value as string);
  };

  const opened = async (e: BetOpenEvent | BetReplayEvent): Promise<void> => {
    const at = now();
    const prevId = e.type === 'bet_replay' ? e.prevId : null;
    const existing = await deps.store.get(e.id);
    const record: BetRecord = {
      id: e.id,
      bettor: e.bettor,
      side: e.side,
      amountUnits: e.amountUnits,
      entryPrice: e.entryPrice,
      exitPrice: 0,
      status: 0,
      expireTime: e.expireTime,
      openedAt: existing?.openedAt ?? at,
      closedAt: null,
      netUnits: null,
      entry: await entryEvidence(deps.history, e.entryPrice, at, deps.source),
      exit: null,
      ticks: [],
      placeTx: placeTx.get(e.id) ?? existing?.placeTx ?? null,
      closeTx: null,
      prevId,
      nextId: existing?.nextId ?? null,
    };
    placeTx.delete(e.id);
    await deps.store.put(record);
    if (prevId !== null) await settled(prevId, { status: 3, exitPrice: null, nextId: e.id });
  };

  /** A bet ended: closed by the scheduler, or (Profile B) tied and replaced by `nextId`. */
  const settled = async (id: string, end: { status: 1 | 2 | 3; exitPrice: number | null; nextId: string | null }): Promise<void> => {
    const record = await deps.store.get(id);
    if (!record) {
      deps.log.warn({ betId: id }, 'bet closed with no history record (opened before the history existed?); not recorded');
      return;
    }
    // a replayed tie closed at its entry price
    const exitPrice = end.exitPrice ?? record.entryPrice;
    const refund = refunds.has(id);
    refunds.delete(id);
    const tx = closeTx.get(id) ?? record.closeTx;
    closeTx.delete(id);
    await deps.store.put({
      ...record,
      status: end.status,
      exitPrice,
      closedAt: now(),
      netUnits: netUnits(end.status, record.amountUnits, await deps.multiplierBps()),
      exit: await exitEvidence(deps.history, { expireTime: record.expireTime, exitPrice, refund, source: deps.source }),
      ticks: await ticksAroundExpiry(deps.history, record.expireTime),
      closeTx: tx,
      nextId: end.nextId ?? record.nextId,
    });
  };

  const apply = async (e: Sequenced<BetEmittedEvent>): Promise<void> => {
    if (e.type === 'bet_closed') {
      const closed: BetClosedEvent = e;
      if (closed.status !== 0) await settled(closed.id, { status: closed.status, exitPrice: closed.exitPrice, nextId: null });
      return;
    }
    await opened(e);
  };

  const recorder: BetRecorder = {
    record(events) {
      for (const e of events) {
        tail = tail.then(() => apply(e)).catch((err: unknown) => deps.log.error({ err, betId: e.id, type: e.type }, 'bet history not written'));
      }
    },
    placed: (id, signature) => note(placeTx, id, signature),
    closedBy: (id, signature) => note(closeTx, id, signature),
    replacedBy(prevId, nextId, signature) {
      note(closeTx, prevId, signature);
      note(placeTx, nextId, signature);
    },
    refunding(id) {
      refunds.add(id);
      if (refunds.size > MAX_NOTES) refunds.delete(refunds.values().next().value as string);
    },
    flushed: () => tail,
    async prune() {
      const removed = await deps.store.pruneOpenedBefore(now() - deps.retentionDays * DAY_MS);
      if (removed > 0) deps.log.info({ removed, days: deps.retentionDays }, 'bet history pruned');
      return removed;
    },
    startPruning(intervalMs = 3_600_000) {
      const run = () => void recorder.prune().catch((err: unknown) => deps.log.error({ err }, 'bet history pruning failed; tried again later'));
      run();
      timer = setInterval(run, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await tail;
    },
  };
  return recorder;
}

/**
 * The bet history records a bet series's transitions write (docs/decisions.md#history-in-the-commit: a bet's
 * history record and its evidence are written in the same atomic commit as its snapshot and
 * events). `LiveBets` hands over the transitions of each commit; this builds the records they
 * change, from the chain's context before and after each transition, the stored record when there
 * is one, and the stored ticks:
 * - `bet_open`: the open record, with the tick its entry price came from and its placement;
 * - `bet_closed`: the record closed with the contract's status and exit price, the rule that
 *   priced the exit and the tick it came from, the ticks around the expiry, and the close;
 * - `bet_replay` (Profile B): the replacement's open record, and the tied bet closed as a refund
 *   whose close is the replacement's placement (one transaction).
 *
 * @example
 *   const recordsOf = betRecords({ stored: (id) => history.get(id), history: ticks, source: 'synthetic', multiplierBps });
 *   const records = await recordsOf(transitions); // written with the commit
 */
import type { BetRecord } from '../../../adapters/store/bet-history/port.ts';
import type { PriceHistory, Tick } from '../../../adapters/store/price-history/port.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetContext } from '../../../machines/bet-types.ts';
import { NEXT_TICK_WINDOW_MS } from '../prices/tick-proofs.ts';
import { entryEvidence, EVIDENCE_WINDOW_MS, exitEvidence, signedExitPair, ticksAroundExpiry } from './evidence.ts';
import { ResetMap } from '../../../kernel/reset-map.ts';

/** One transition of a bet series that emitted events. */
export interface BetTransition {
  /** the chain's context before it (null when the chain was just created) */
  before: BetContext | null;
  after: BetContext;
  events: readonly BetEmittedEvent[];
  /** unix ms */
  at: number;
}

/** What the records are built from. */
export interface BetRecordsDeps {
  /** the stored record of a bet; null when there is none */
  stored(id: string): Promise<BetRecord | null>;
  history: PriceHistory;
  /** where prices come from, e.g. `nats:market.price.solusdt` or `synthetic` */
  source: string;
  /** the contract's payout multiplier (net result of a win) */
  multiplierBps(): Promise<bigint>;
}

/** Net result in token base units of a settled bet. */
export function netUnits(status: 1 | 2 | 3, amountUnits: string, multiplierBps: bigint): string {
  const amount = BigInt(amountUnits);
  if (status === 1) return ((amount * multiplierBps) / 10_000n - amount).toString();
  return status === 2 ? (-amount).toString() : '0';
}

/** How a record closes. */
interface Ending {
  status: 1 | 2 | 3;
  exitPrice: number;
  /** refunded at the entry price for want of a usable price */
  refund: boolean;
  closeTx: string | null;
  nextId: string | null;
  at: number;
}

/** Reads of the price history shared by the bets expiring in the same second (thousands settle together). */
class ExpiryTicks {
  private readonly held = new ResetMap<number, { at: number; ticks: Promise<Tick[]> }>(256);

  constructor(private readonly history: PriceHistory) {}

  around(expireTime: number, now: number): Promise<Tick[]> {
    const kept = this.held.get(expireTime);
    // ticks after the expiry keep arriving for a few seconds: a read is reused for a second only
    if (kept && now - kept.at < 1_000) return kept.ticks;
    const ticks = this.history.between(expireTime * 1000 - EVIDENCE_WINDOW_MS, expireTime * 1000 + EVIDENCE_WINDOW_MS);
    this.held.set(expireTime, { at: now, ticks });
    ticks.catch(() => this.held.delete(expireTime));
    return ticks;
  }
}

/** Builds the records of a commit's transitions. */
export function betRecords(deps: BetRecordsDeps): (transitions: readonly BetTransition[]) => Promise<BetRecord[]> {
  const expiryTicks = new ExpiryTicks(deps.history);

  const opened = async (c: BetContext, at: number): Promise<BetRecord> => {
    const entryPrice = Number(c.entryPrice);
    // the entry tick is at or before the placement, and before the expiry (an adopted bet is recorded later)
    const found = await entryEvidence(deps.history, entryPrice, Math.min(at, c.expireTime * 1000), deps.source);
    return {
      id: c.id,
      bettor: c.bettor,
      side: c.side,
      amountUnits: c.amountUnits,
      entryPrice,
      exitPrice: 0,
      status: 0,
      expireTime: c.expireTime,
      openedAt: at,
      closedAt: null,
      netUnits: null,
      entry: found.entry,
      exit: null,
      ticks: [],
      signed: { entry: found.signed, exit: null },
      placeTx: c.placeTx ?? null,
      closeTx: null,
      prevId: c.prevId,
      nextId: null,
    };
  };

  /** The signed pair that priced an exit, from the ticks around its expiry (the one after it from the history when it came later). */
  const exitPairOf = async (around: Tick[], expireTime: number, exitPrice: number) => {
    const expiryMs = expireTime * 1000;
    const n = around.findLast((t) => t.ts <= expiryMs) ?? (await deps.history.atOrBefore(expiryMs));
    const next = around.find((t) => t.ts > expiryMs) ?? (await deps.history.between(expiryMs + 1, expiryMs + NEXT_TICK_WINDOW_MS))[0];
    return signedExitPair(n, next, expireTime, exitPrice);
  };

  const closed = async (base: BetRecord, end: Ending): Promise<BetRecord> => {
    const around = await expiryTicks.around(base.expireTime, end.at);
    // the evidence helpers read from the ticks around the expiry, read once for every bet of that expiry
    const local: Pick<PriceHistory, 'between' | 'atOrBefore'> = {
      between: async (from, to) => around.filter((t) => t.ts >= from && t.ts <= to),
      atOrBefore: async (ts) => around.filter((t) => t.ts <= ts).at(-1) ?? deps.history.atOrBefore(ts),
    };
    return {
      ...base,
      signed: { entry: base.signed?.entry ?? null, exit: end.refund ? null : await exitPairOf(around, base.expireTime, end.exitPrice) },
      status: end.status,
      exitPrice: end.exitPrice,
      closedAt: end.at,
      netUnits: netUnits(end.status, base.amountUnits, await deps.multiplierBps()),
      exit: await exitEvidence(local, { expireTime: base.expireTime, exitPrice: end.exitPrice, refund: end.refund, source: deps.source }),
      ticks: await ticksAroundExpiry(local, base.expireTime),
      closeTx: end.closeTx ?? base.closeTx,
      nextId: end.nextId ?? base.nextId,
    };
  };

  return async (transitions) => {
    const out = new Map<string, BetRecord>();
    /** The record as this batch left it, else as stored, else as the context says it opened. */
    const base = async (id: string, context: BetContext | null, at: number): Promise<BetRecord | null> =>
      out.get(id) ?? (await deps.stored(id)) ?? (context && context.id === id ? opened(context, at) : null);

    for (const t of transitions) {
      for (const e of t.events) {
        if (e.type === 'bet_open') {
          out.set(e.id, await opened(t.after, t.at));
        } else if (e.type === 'bet_replay') {
          out.set(e.id, await opened(t.after, t.at));
          // the tied bet: closed at its entry price by the transaction that placed the replacement
          const tied = await base(e.prevId, t.before, t.at);
          if (tied)
            out.set(e.prevId, await closed(tied, { status: 3, exitPrice: tied.entryPrice, refund: false, closeTx: t.after.placeTx, nextId: e.id, at: t.at }));
        } else if (e.status !== 0) {
          const bet = await base(e.id, t.after, t.at);
          if (bet)
            out.set(
              e.id,
              await closed(bet, {
                status: e.status,
                exitPrice: e.exitPrice,
                refund: t.after.refundAtEntry,
                closeTx: t.after.closeSignature,
                nextId: null,
                at: t.at,
              }),
            );
        }
      }
    }
    return [...out.values()];
  };
}

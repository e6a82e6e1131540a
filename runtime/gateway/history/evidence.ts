/**
 * Settlement evidence of a bet, read from the local price history
 * (docs/decisions.md#entry-and-exit-prices): the tick the entry price was taken from, the tick the
 * exit price was taken from (the last tick at or before expiry) or the refund and its reason, and
 * the ticks around the expiry.
 *
 * @example
 *   const exit = await exitEvidence(history, { expireTime, exitPrice, refund: false, source: 'synthetic' });
 */
import type { EntryEvidence, EvidenceTick, ExitEvidence } from '../../../adapters/store/bet-history/port.ts';
import type { PriceHistory, Tick } from '../../../adapters/store/price-history/port.ts';
import { PRICE_RULES, priceToE8 } from '../prices/rules.ts';

/** Ticks kept as evidence: this long before the expiry to this long after it. */
export const EVIDENCE_WINDOW_MS = 5_000;

const e8 = (t: Tick): number => Number(priceToE8(t.price));
const asEvidence = (t: Tick): EvidenceTick => ({ price: e8(t), ts: t.ts });

/** The newest tick at or before `atMs` (and at most 30 s older) whose price is `entryPrice`; ts null when none is held. */
export async function entryEvidence(history: Pick<PriceHistory, 'between'>, entryPrice: number, atMs: number, source: string): Promise<EntryEvidence> {
  const ticks = await history.between(atMs - PRICE_RULES.maxTickAgeMs, atMs);
  for (let i = ticks.length - 1; i >= 0; i--) {
    const t = ticks[i] as Tick;
    if (e8(t) === entryPrice) return { price: entryPrice, ts: t.ts, source };
  }
  return { price: entryPrice, ts: null, source };
}

/** What the close used. */
export interface ExitFacts {
  /** unix seconds */
  expireTime: number;
  exitPrice: number;
  /** the stake was refunded at the entry price because no usable price came (300 s) */
  refund: boolean;
  source: string;
}

/** How the exit price was chosen; a price the history cannot show (closed by another process, ticks gone) says `chain`. */
export async function exitEvidence(history: Pick<PriceHistory, 'atOrBefore'>, facts: ExitFacts): Promise<ExitEvidence> {
  const expiryMs = facts.expireTime * 1000;
  if (facts.refund) {
    return {
      price: facts.exitPrice,
      ts: null,
      source: 'entry price',
      rule: 'refund_no_price',
      reason: `no tick at most ${PRICE_RULES.maxTickAgeMs / 1000} s old priced the expiry within ${PRICE_RULES.refundAfterMs / 1000} s; the stake was returned at the entry price`,
    };
  }
  const tick = await history.atOrBefore(expiryMs);
  if (tick && e8(tick) === facts.exitPrice && tick.ts >= expiryMs - PRICE_RULES.maxTickAgeMs) {
    return { price: facts.exitPrice, ts: tick.ts, source: facts.source, rule: 'last_tick_at_or_before_expiry', reason: 'the last tick with ts <= expireTime' };
  }
  return {
    price: facts.exitPrice,
    ts: null,
    source: 'chain',
    rule: 'chain',
    reason: "the exit price the contract recorded; its tick is not in this gateway's price history",
  };
}

/** The ticks from EVIDENCE_WINDOW_MS before the expiry to as long after it, as far as they have arrived. */
export async function ticksAroundExpiry(history: Pick<PriceHistory, 'between'>, expireTime: number): Promise<EvidenceTick[]> {
  const expiryMs = expireTime * 1000;
  return (await history.between(expiryMs - EVIDENCE_WINDOW_MS, expiryMs + EVIDENCE_WINDOW_MS)).map(asEvidence);
}

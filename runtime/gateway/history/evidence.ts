/**
 * Settlement evidence of a bet, read from the local price history
 * (docs/decisions.md#entry-and-exit-prices): the tick the entry price was taken from, the tick the
 * exit price was taken from (the last tick at or before expiry) or the refund and its reason, and
 * the ticks around the expiry; and, from a signing feed, the signed ticks themselves (the entry tick,
 * the pair n, n+1 around the expiry) that anyone checks with the signer's key alone.
 *
 * @example
 *   const exit = await exitEvidence(history, { expireTime, exitPrice, refund: false, source: 'synthetic' });
 */
import type { EntryEvidence, EvidenceTick, ExitEvidence, SignedEvidenceTick } from '../../../adapters/store/bet-history/port.ts';
import { exitPair } from '../../../adapters/chain/codec/ed25519.ts';
import type { PriceHistory, Tick } from '../../../adapters/store/price-history/port.ts';
import { PRICE_RULES, priceToE8 } from '../prices/rules.ts';

/** Ticks kept as evidence: this long before the expiry to this long after it. */
export const EVIDENCE_WINDOW_MS = 5_000;

const e8 = (t: Tick): number => Number(priceToE8(t.price));
const asEvidence = (t: Tick): EvidenceTick => ({ price: e8(t), ts: t.ts });

/** A signed tick as evidence; null for an unsigned one. */
export function signedEvidence(t: Tick | undefined): SignedEvidenceTick | null {
  if (!t?.signed) return null;
  return { price: e8(t), ts: t.ts, seq: t.signed.seq, signature: t.signed.signature, signer: t.signed.signer };
}

/** Where an entry price came from. */
export interface EntryFound {
  entry: EntryEvidence;
  /** the newest signed tick of that price in the same span; null when none is held */
  signed: SignedEvidenceTick | null;
}

/** The newest tick at or before `atMs` (and at most 30 s older) whose price is `entryPrice`; ts null when none is held. */
export async function entryEvidence(history: Pick<PriceHistory, 'between'>, entryPrice: number, atMs: number, source: string): Promise<EntryFound> {
  const ticks = (await history.between(atMs - PRICE_RULES.maxTickAgeMs, atMs)).filter((t) => e8(t) === entryPrice);
  const newest = ticks.at(-1);
  const signed = newest?.signed ? newest : ticks.findLast((t) => t.signed !== undefined);
  return { entry: { price: entryPrice, ts: newest?.ts ?? null, source }, signed: signedEvidence(signed) };
}

/**
 * The signed pair n, n+1 that prices an exit at `exitPrice` (ts(n) <= expiry < ts(n+1), one signer,
 * consecutive numbers, n at most 30 s before the expiry), or null when the ticks do not form it.
 */
export function signedExitPair(
  n: Tick | undefined,
  next: Tick | undefined,
  expireTime: number,
  exitPrice: number,
): [SignedEvidenceTick, SignedEvidenceTick] | null {
  const pair = exitPair(n, next, expireTime * 1000);
  if (!pair || e8(pair[0]) !== exitPrice) return null;
  const [a, b] = [signedEvidence(pair[0]), signedEvidence(pair[1])];
  return a && b ? [a, b] : null;
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

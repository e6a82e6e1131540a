/**
 * The figures of bench/landing.ts from what one phase recorded: its answers, the events its
 * client received, the bets on chain and the gateway's landing counters
 * (docs/operations.md#metrics), and the report rows that put the FAULTS phase beside the CLEAN
 * one. The accounting of answers against the chain follows docs/gateway-api.md#profile-a-post-apibet:
 * a bet on chain is accounted for by a 200 with its id, or by a 500 pending whose `tx` landed.
 */
import type { BetAccount } from '../../adapters/chain/port.ts';
import type { BetEvents } from './bet-events.ts';
import type { BetAttempt } from './bettors.ts';
import { percentile, type Row } from './measure.ts';

/** What one phase recorded. */
export interface PhaseResult {
  name: string;
  wallets: string[];
  /** every answer of the phase, warm-up included */
  answers: BetAttempt[];
  /** unix ms: the measured loop (answers sent in [from, to)) */
  from: number;
  to: number;
  events: BetEvents;
  bets: BetAccount[];
  /** the `tx` of pending answers that landed */
  landedPending: Set<string>;
  /** every bet settled and nothing left landing before the bounded wait ran out */
  drained: boolean;
  drainSeconds: number;
  /** gateway counter deltas over the phase, and the pending gauge at its end */
  tx: { sends: number; landed: number; expired: number; resigned: number; failed: number; landingSeconds: number; landingCount: number; pendingAtEnd: number };
}

const isPending = (a: BetAttempt) => a.status === 500 && a.body?.pending === true;

/** The figures of one phase. */
export function figures(p: PhaseResult) {
  const measured = p.answers.filter((a) => a.sentAt >= p.from && a.sentAt < p.to);
  const count = (xs: BetAttempt[], f: (a: BetAttempt) => boolean) => xs.filter(f).length;
  const ok = measured.filter((a) => a.status === 200);
  const c = {
    attempts: measured.length,
    ok: ok.length,
    conflict: count(measured, (a) => a.status === 409),
    pending: count(measured, isPending),
    other500: count(measured, (a) => a.status === 500 && !isPending(a)),
    other: count(measured, (a) => a.status !== 200 && a.status !== 409 && a.status !== 500),
  };
  const okShare = (100 * c.ok) / Math.max(1, c.attempts - c.conflict);

  // every answer of the phase against the chain
  const onChain = new Map(p.bets.map((b) => [b.id.toString(), b]));
  const allOk = p.answers.filter((a) => a.status === 200);
  const lost = allOk.filter((a) => onChain.get(String(a.body?.id))?.bettor !== a.address).length;
  let answeredAsFailure = 0;
  let unexplained = 0;
  for (const w of p.wallets) {
    const mine = p.answers.filter((a) => a.address === w);
    const accounted = count(mine, (a) => a.status === 200) + count(mine, (a) => isPending(a) && p.landedPending.has(String(a.body?.tx)));
    const excess = p.bets.filter((b) => b.bettor === w).length - accounted;
    // a failure answer (a 500 without pending, or no answer at all) of this wallet explains a bet nothing else accounts for
    const failures = count(mine, (a) => (a.status === 500 && !isPending(a)) || a.status === 0);
    answeredAsFailure += Math.max(0, Math.min(excess, failures));
    unexplained += Math.max(0, excess - failures);
  }
  const allPending = p.answers.filter(isPending);

  const closeLag: number[] = [];
  for (const b of p.bets) {
    const closed = p.events.closedAt.get(b.id.toString())?.[0];
    if (closed !== undefined) closeLag.push((closed - Number(b.expireTime) * 1000) / 1000);
  }
  const closedTwice = [...p.events.closedAt.values()].filter((t) => t.length > 1).length;
  const openedTwice = [...p.events.openCount.values()].filter((n) => n > 1).length;
  const unsettled = p.bets.filter((b) => !p.events.closedAt.has(b.id.toString())).length;
  const openOnChain = p.bets.filter((b) => b.status === 0).length;

  return {
    c,
    okShare,
    p50: percentile(
      ok.map((a) => a.ms),
      50,
    ),
    p99: percentile(
      ok.map((a) => a.ms),
      99,
    ),
    perSecond: c.ok / ((p.to - p.from) / 1000),
    closeLag,
    lost,
    answeredAsFailure,
    unexplained,
    pendingAll: allPending.length,
    pendingLanded: allPending.filter((a) => p.landedPending.has(String(a.body?.tx))).length,
    closedTwice,
    openedTwice,
    unsettled,
    openOnChain,
    sendsPerLanded: p.tx.sends / Math.max(1, p.tx.landed),
  };
}

type Figures = ReturnType<typeof figures>;

const counts = (f: Figures) =>
  `${f.c.attempts} attempts: ${f.c.ok} 200, ${f.c.conflict} 409, ${f.c.pending} 500 pending, ${f.c.other500} 500 other, ${f.c.other} other/no answer`;

/** The report rows: each FAULTS figure with the CLEAN one as its baseline. */
export function landingRows(faulty: PhaseResult, clean: PhaseResult): Row[] {
  const f = figures(faulty);
  const k = figures(clean);
  const base = (value: number) => ({ name: 'clean', value });
  const drain = (p: PhaseResult) => `${p.drained ? 'drained' : 'NOT drained'} in ${p.drainSeconds.toFixed(1)} s`;
  const tx = (p: PhaseResult, x: Figures) =>
    `${p.tx.sends} sends / ${p.tx.landed} landed (${x.sendsPerLanded.toFixed(2)}), ${p.tx.expired} expired, ${p.tx.resigned} resigned, ` +
    `${p.tx.failed} failed, mean landing ${(p.tx.landingSeconds / Math.max(1, p.tx.landingCount)).toFixed(2)} s, ${p.tx.pendingAtEnd} pending at the end`;
  return [
    {
      measure: 'POST /api/bet answered 200, of attempts not 409',
      value: f.okShare,
      unit: '%',
      baseline: base(k.okShare),
      goal: '>= 99 % under faults, 100 % clean',
      detail: `faults ${f.okShare.toFixed(2)} %, ${counts(f)}; clean ${k.okShare.toFixed(2)} %, ${counts(k)}`,
    },
    {
      measure: 'p99 latency of the 200 answers',
      value: f.p99,
      unit: 'ms',
      baseline: base(k.p99),
      goal: '<= 4000 ms under faults',
      detail: `p50 faults ${f.p50.toFixed(0)} ms, clean ${k.p50.toFixed(0)} ms`,
    },
    {
      measure: 'acknowledged bets/s',
      value: f.perSecond,
      unit: 'bets/s',
      baseline: base(k.perSecond),
      goal: '>= 0.8x clean',
      detail: `${f.c.ok} 200s in ${((faulty.to - faulty.from) / 1000).toFixed(1)} s; clean ${k.c.ok} in ${((clean.to - clean.from) / 1000).toFixed(1)} s`,
    },
    {
      measure: 'bet_closed p99 after expiry',
      value: percentile(f.closeLag, 99),
      unit: 's',
      baseline: base(percentile(k.closeLag, 99)),
      goal: '<= 8 s',
      detail:
        `faults: p50 ${percentile(f.closeLag, 50).toFixed(2)} s, max ${Math.max(...f.closeLag).toFixed(2)} s, ${f.closeLag.length}/${faulty.bets.length} bets on chain closed, ` +
        `${f.unsettled} without bet_closed, ${f.openOnChain} open on chain, ${faulty.events.reconnects} WS resumes, ${drain(faulty)}; ` +
        `clean: p50 ${percentile(k.closeLag, 50).toFixed(2)} s, ${k.closeLag.length}/${clean.bets.length} closed, ${drain(clean)}`,
    },
    {
      measure: 'bets landed but answered as a failure',
      value: f.answeredAsFailure,
      unit: 'bets',
      baseline: base(k.answeredAsFailure),
      goal: '0',
      detail:
        `faults: all ${faulty.answers.length} answers checked, ${f.pendingAll} 500 pending (${f.pendingLanded} landed), ` +
        `${f.unexplained} bets on chain no answer accounts for, ${faulty.bets.length} bets on chain; clean: ${k.pendingAll} pending, ${k.unexplained} unaccounted`,
    },
    {
      measure: 'bets lost (a 200 whose id is not on chain)',
      value: f.lost,
      unit: 'bets',
      baseline: base(k.lost),
      goal: '0',
      detail: `of ${faulty.answers.filter((a) => a.status === 200).length} 200s (clean ${clean.answers.filter((a) => a.status === 200).length})`,
    },
    {
      measure: 'bets settled twice (two bet_closed for one id)',
      value: f.closedTwice,
      unit: 'bets',
      baseline: base(k.closedTwice),
      goal: '0',
      detail: `announced twice: faults ${f.openedTwice}, clean ${k.openedTwice}`,
    },
    {
      measure: 'sendTransaction calls per landed transaction',
      value: f.sendsPerLanded,
      unit: 'sends',
      baseline: base(k.sendsPerLanded),
      goal: '<= 3',
      detail: `faults: ${tx(faulty, f)}; clean: ${tx(clean, k)}`,
    },
  ];
}

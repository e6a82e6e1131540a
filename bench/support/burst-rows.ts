/**
 * The burst rows of `npm run bench -- gateway-bets`: BENCH_BURST (2000) bets at once on `npm start`'s
 * default stack and on the chain process with Redis, quiet and beside a busy loop
 * (test/support/bet-burst.ts), each reported beside the chain's pre-signed capacity measured in the
 * same run; BENCH_SIGNED_PRICES=on (or off) sets both stacks' prices (default: npm start signed,
 * the chain process not). Goals (docs/decisions.md#placements-are-admitted-not-queued): no false
 * answer, every answer 200, 409, pending with its transaction or 503 with Retry-After, and a p99
 * answer time of at most 2 s on a quiet machine.
 */
import { betBurst, burstStack, settled, type BurstResult } from '../../test/support/bet-burst.ts';
import type { Row } from './measure.ts';

const BURST = Number(process.env.BENCH_BURST ?? 2000);
/** SIGNED_PRICES of both stacks (`auto`, the default: on for npm start, off for the chain process) */
const SIGNED = process.env.BENCH_SIGNED_PRICES ?? 'auto';
/** How a stack's prices are attested under SIGNED. */
const pricesOf = (kind: 'embedded' | 'chain+redis'): string =>
  (SIGNED === 'auto' ? kind === 'embedded' : SIGNED === 'on') ? 'signed prices' : 'relayer prices';

/** The row of one burst. */
function row(stack: string, prices: string, neighbour: boolean, r: BurstResult, raw: number): Row {
  const valid = r.classes.ok + r.classes.conflict + r.classes.pending + r.classes.shed;
  return {
    measure: `${BURST} POST /api/bet at once, ${stack}, ${prices}${neighbour ? ', busy loop beside it' : ', quiet'}: bets landed per second of the burst`,
    value: r.landed / r.seconds,
    unit: 'bets/s',
    baseline: { name: 'chain pre-signed place_bet', value: raw },
    goal: `0 false answers, ${BURST}/${BURST} answers 200/409/pending/503+Retry-After${neighbour ? '' : ', answer p99 <= 2000 ms'}`,
    detail:
      `${r.falseAnswers.length} false answers${r.falseAnswers.length > 0 ? ` (first: ${r.falseAnswers[0]})` : ''}; ${valid}/${r.answers.length} in the four classes: ` +
      `${r.classes.ok} 200, ${r.classes.conflict} 409, ${r.classes.pending} pending (${r.pendingLanded} landed), ${r.classes.shed} 503, ${r.classes.other} other; ` +
      `${r.landed} landed; answer p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms; burst ${r.seconds.toFixed(1)} s`,
  };
}

/** Runs the four bursts; `raw` is the chain's pre-signed capacity of this run. */
export async function burstRows(raw: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [kind, name] of [
    ['embedded', 'npm start defaults (chain in-process, file stores)'],
    ['chain+redis', 'chain process + Redis + gateway process'],
  ] as const) {
    const stack = await burstStack(kind, { GW_EXPIRY_SECONDS: '3', SMART_SETTLE_INTERVAL_MS: '200', SIGNED_PRICES: SIGNED });
    try {
      const wallets = await stack.fundedWallets(BURST);
      for (const neighbour of [false, true]) {
        rows.push(row(name, pricesOf(kind), neighbour, await betBurst(stack, wallets, { neighbour }), raw));
        await settled(stack.chainUrl, wallets);
      }
    } finally {
      await stack.stop();
    }
  }
  return rows;
}

/**
 * The gateway's bet history checked against the chain, black box (docs/gateway-api.md#history): for
 * every bet the chain held (its last state, from `BetAccountWatch.everHeld()`), `GET /api/bets/:id`
 * has a record; its status and exitPrice are the chain's; a closed bet has its `closeTx` and is not
 * open in the history; and the bet is on its bettor's pages of `GET /api/bets?address=`. The last
 * closes may still be committing when it starts, so the audit is repeated until it holds or
 * `settleMs` passed, and the last findings are returned, one line per defect.
 *
 * @example
 *   const { bets } = await watch.everHeld();
 *   expect(await auditHistory(gatewayBase, bets)).toEqual([]);
 */
import type { BetAccount } from '../../adapters/chain/port.ts';
import { request, sleep } from './client-request.ts';

/** At most this many history requests at once (the machine is shared). */
const PARALLEL = 8;

async function inBatches<T, R>(items: readonly T[], each: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL) out.push(...(await Promise.all(items.slice(i, i + PARALLEL).map(each))));
  return out;
}

const described = (b: BetAccount) => `bet ${b.id} (chain: status ${b.status}, exitPrice ${b.exitPrice})`;

/** What the record of `bet` says wrong, or nothing. */
async function recordProblems(base: string, bet: BetAccount): Promise<string[]> {
  const r = await request(base, 'GET', `/api/bets/${bet.id}`);
  if (r.status !== 200) return [`${described(bet)}: GET /api/bets/${bet.id} answered ${r.status} ${JSON.stringify(r.body)}`];
  const rec = r.body as { status: number; exitPrice: number; bettor: string; entryPrice: number; evidence: { closeTx: string | null; exit: unknown } };
  const problems: string[] = [];
  if (bet.status !== 0 && rec.status === 0) problems.push(`${described(bet)}: the history says open (status 0, exitPrice ${rec.exitPrice})`);
  else if (rec.status !== bet.status) problems.push(`${described(bet)}: the history says status ${rec.status}`);
  if (rec.exitPrice !== Number(bet.exitPrice)) problems.push(`${described(bet)}: the history says exitPrice ${rec.exitPrice}`);
  if (bet.status !== 0 && !rec.evidence.closeTx) problems.push(`${described(bet)}: no closeTx in the evidence`);
  if (bet.status !== 0 && rec.evidence.exit === null) problems.push(`${described(bet)}: no exit evidence`);
  if (rec.bettor !== bet.bettor || rec.entryPrice !== Number(bet.entryPrice))
    problems.push(`${described(bet)}: the history has bettor ${rec.bettor}, entryPrice ${rec.entryPrice}; the chain ${bet.bettor}, ${bet.entryPrice}`);
  return problems;
}

/** Ids on every page of `GET /api/bets?address=`, or a problem line. */
async function listedIds(base: string, address: string): Promise<Set<string> | string> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  for (let page = 0; page < 1_000; page++) {
    const r = await request(base, 'GET', `/api/bets?address=${address}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    if (r.status !== 200) return `GET /api/bets?address=${address} answered ${r.status} ${JSON.stringify(r.body)}`;
    for (const item of r.body.items as Array<{ id: string }>) ids.add(item.id);
    cursor = r.body.nextCursor as string | null;
    if (cursor === null) return ids;
  }
  return `GET /api/bets?address=${address} pages without end`;
}

/** One pass of the audit: every defect found now. */
export async function historyProblems(base: string, bets: readonly BetAccount[]): Promise<string[]> {
  const problems = (await inBatches(bets, (b) => recordProblems(base, b))).flat();
  const bettors = [...new Set(bets.map((b) => b.bettor))];
  const listed = await inBatches(bettors, (a) => listedIds(base, a));
  bettors.forEach((address, i) => {
    const ids = listed[i]!;
    if (typeof ids === 'string') return problems.push(ids);
    for (const b of bets)
      if (b.bettor === address && !ids.has(b.id.toString())) problems.push(`${described(b)}: not on its bettor's pages of GET /api/bets?address=`);
  });
  return problems;
}

/** Audits until the history holds, or `settleMs` passed (the last closes may still be committing); returns the last findings. */
export async function auditHistory(base: string, bets: readonly BetAccount[], settleMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + settleMs;
  for (;;) {
    const problems = await historyProblems(base, bets);
    if (problems.length === 0 || Date.now() > deadline) return problems;
    await sleep(1_000);
  }
}

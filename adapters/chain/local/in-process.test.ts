import { describe, expect, it } from 'vitest';
import { Slices } from './in-process.ts';

/** Keeps the thread busy for `ms` (the synchronous work of a transaction). */
const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('Slices', () => {
  it('lets work in while the turn has time left, the rest in the next turns, first come first served', async () => {
    const slices = new Slices(8);
    let turn = 0;
    const ticking = setInterval(() => undefined, 1); // keeps the loop alive between turns
    const countTurns = () => {
      turn++;
      if (turn < 100) setImmediate(countTurns);
    };
    setImmediate(countTurns);
    const ran: Array<{ job: number; turn: number }> = [];
    await Promise.all(
      Array.from({ length: 9 }, async (_, job) => {
        await slices.enter();
        ran.push({ job, turn });
        spin(3);
        slices.leave();
      }),
    );
    clearInterval(ticking);
    expect(ran.map((r) => r.job)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // 3 ms each in an 8 ms slice: three per turn, never all nine in one
    const perTurn = new Map<number, number>();
    for (const r of ran) perTurn.set(r.turn, (perTurn.get(r.turn) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(3);
    expect(perTurn.size).toBeGreaterThanOrEqual(3);
  });

  it('work that fits in one turn goes at once', async () => {
    const slices = new Slices(1_000);
    const turnOf: number[] = [];
    let turn = 0;
    setImmediate(() => turn++);
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        await slices.enter();
        turnOf.push(turn);
        slices.leave();
      }),
    );
    expect(turnOf).toEqual([0, 0, 0, 0, 0]);
  });
});

import { pino } from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/support/manual-clock.ts';
import { DroppedLog } from './dropped-log.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

describe('DroppedLog', () => {
  it('logs the first drop at once, then one line per interval with the count in between', async () => {
    const { lines, logger } = capture();
    const clock = new ManualClock();
    const drops = new DroppedLog(logger, 'dropped', 10_000, clock);
    drops.record({ reason: 'first' });
    for (let i = 0; i < 50; i++) {
      clock.advance(100);
      drops.record({ reason: `r${i}` });
    }
    clock.advance(5_000); // 10.0 s after the first line
    drops.record({ reason: 'later' });
    await new Promise((r) => setImmediate(r));
    expect(drops.total).toBe(52);
    expect(lines.map((l) => [l.reason, l.droppedSinceLastReport, l.droppedTotal, l.level])).toEqual([
      ['first', 1, 1, 40],
      ['later', 51, 52, 40],
    ]);
  });
});

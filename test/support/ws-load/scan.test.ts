/**
 * The hot-path readers of the load client: fields read from bytes (`fields.ts`), seq bookkeeping
 * across reconnects (`sequence.ts`), the millisecond histogram (`histogram.ts`), the spread of
 * sockets over workers and addresses (`plan.ts`), local ports (`ports.ts`) and the upgrade answer
 * (`upgrade.ts`).
 */
import { describe, expect, it } from 'vitest';
import { numberField, SEQ_KEY, TS_KEY, typeField } from './fields.ts';
import { MsHistogram } from './histogram.ts';
import { addLoad, defaultAddresses, MAX_PER_ADDRESS, shareOf, sourcesOfWorkers } from './plan.ts';
import { PortCursor } from './ports.ts';
import { SeqTrack } from './sequence.ts';
import { readUpgradeAnswer } from './upgrade.ts';

describe('fields', () => {
  const read = (json: string) => {
    const buf = Buffer.from(`xx${json}yy`); // a message in the middle of a chunk
    const end = buf.length - 2;
    return { type: typeField(buf, 2, end), seq: numberField(buf, 2, end, SEQ_KEY), ts: numberField(buf, 2, end, TS_KEY) };
  };

  it('reads type, seq and ts of an event', () => {
    expect(read('{"type":"price","symbol":"solusdt","price":"1.0","ts":1763700000123,"seq":42}')).toEqual({ type: 'price', seq: 42, ts: 1763700000123 });
    expect(read('{"type":"bet_open","id":"7","seq":9}')).toEqual({ type: 'bet_open', seq: 9, ts: -1 });
    expect(read('{ "type": "something_new", "seq": 3 }')).toEqual({ type: 'something_new', seq: 3, ts: -1 });
  });

  it('does not read past the end of the message', () => {
    const buf = Buffer.from('{"type":"price"}{"seq":5,"ts":6}');
    expect(numberField(buf, 0, 16, SEQ_KEY)).toBe(-1);
    expect(numberField(buf, 0, 16, TS_KEY)).toBe(-1);
    expect(typeField(Buffer.from('{"type":"pri'), 0, 12)).toBe('');
  });

  it('does not take a key inside a string, nor a key that ends like it', () => {
    expect(read('{"note":"a \\"seq\\": 1","bets":5,"seq":8}').seq).toBe(8);
  });
});

describe('SeqTrack', () => {
  it('counts duplicates and gaps on one connection', () => {
    const s = new SeqTrack();
    s.connected(null);
    for (const seq of [10, 11, 11, 12, 15, 14, 16]) s.seen(seq, false);
    expect(s).toMatchObject({ duplicates: 2, gaps: 1, missing: 2 });
  });

  it('does not judge a fresh connection by its first price (the current one)', () => {
    const s = new SeqTrack();
    s.connected(null);
    s.seen(5, true);
    s.seen(9, false);
    s.seen(10, false);
    expect(s).toMatchObject({ duplicates: 0, gaps: 0, last: 10 });
  });

  it('counts across a resume with recovered: true, the snapshot price apart', () => {
    const s = new SeqTrack();
    s.connected(null);
    s.seen(1, false);
    s.seen(2, false);
    s.connected(2);
    s.resumed(true, 2);
    s.seen(2, true); // the current price, at since
    s.seen(3, false);
    s.seen(3, false);
    s.seen(5, false);
    expect(s).toMatchObject({ snapshots: 1, duplicates: 1, gaps: 1, missing: 1 });
  });

  it('starts again after a resume with recovered: false', () => {
    const s = new SeqTrack();
    s.connected(null);
    s.seen(100, false);
    s.connected(100);
    s.resumed(false, 100);
    s.seen(7, false);
    s.seen(8, false);
    expect(s).toMatchObject({ duplicates: 0, gaps: 0, last: 8 });
  });

  it('owes since + 1 after a connect with since, resume message or not', () => {
    const s = new SeqTrack();
    s.connected(20);
    s.seen(23, false);
    expect(s).toMatchObject({ gaps: 1, missing: 2 });
  });
});

describe('MsHistogram', () => {
  it('merges sparse parts and answers exact percentiles', () => {
    const a = new MsHistogram();
    const b = new MsHistogram();
    for (let ms = 1; ms <= 50; ms++) a.record(ms);
    for (let ms = 51; ms <= 100; ms++) b.record(ms);
    b.record(-3);
    b.record(1e9);
    const all = MsHistogram.from([a.sparse(), b.sparse()]);
    expect(all.summary()).toEqual({ count: 102, p50: 50, p90: 91, p99: 100, max: 60_001 });
    a.reset();
    expect(a.summary()).toEqual({ count: 0, p50: null, p90: null, p99: null, max: null });
  });
});

describe('plan', () => {
  it('gives each worker its own addresses, or its own ports of a shared one, and an even share', () => {
    expect(sourcesOfWorkers(2, ['a', 'b', 'c'], [100, 199])).toEqual([
      [
        { address: 'a', ports: [100, 199] },
        { address: 'c', ports: [100, 199] },
      ],
      [{ address: 'b', ports: [100, 199] }],
    ]);
    expect(sourcesOfWorkers(3, ['a', 'b'], [100, 199])).toEqual([
      [{ address: 'a', ports: [100, 149] }],
      [{ address: 'b', ports: [100, 199] }],
      [{ address: 'a', ports: [150, 199] }],
    ]);
    expect(shareOf(10, 4)).toEqual([3, 3, 2, 2]);
    expect(defaultAddresses(2)).toEqual(['127.0.0.2', '127.0.0.3']);
  });

  it('refuses more than MAX_PER_ADDRESS sockets on one address, leaving the count as it was', () => {
    const load = new Map<string, number>();
    const sources = [
      { address: 'a', ports: [1, 2] as [number, number] },
      { address: 'b', ports: [1, 2] as [number, number] },
    ];
    addLoad(load, sources, 0, 2 * MAX_PER_ADDRESS);
    expect(() => addLoad(load, sources, 2 * MAX_PER_ADDRESS, 1)).toThrow(/at most/);
    expect(load.get('a')).toBe(MAX_PER_ADDRESS);
  });
});

describe('PortCursor', () => {
  it('goes round the slice, skipping held ports, and answers null when all are held', () => {
    const ports = new PortCursor([10, 12], 0);
    expect([ports.take(), ports.take()]).toEqual([10, 11]);
    ports.release(10);
    expect(ports.take()).toBe(12); // a released port comes back only after the others
    expect(ports.take()).toBe(10);
    expect(ports.take()).toBeNull();
    ports.release(11);
    expect(ports.take()).toBe(11);
  });
});

describe('readUpgradeAnswer', () => {
  it('waits for the whole header, then reads the status, the accept digest and Retry-After', () => {
    expect(readUpgradeAnswer(Buffer.from('HTTP/1.1 101 Switching'))).toBeNull();
    const ok = readUpgradeAnswer(Buffer.from('HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\x81\x00'));
    expect(ok).toEqual({ status: 101, upgraded: true, retryAfterMs: null, bodyAt: 88 });
    const busy = readUpgradeAnswer(Buffer.from('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\n\r\n'));
    expect(busy).toMatchObject({ status: 503, upgraded: false, retryAfterMs: 2000 });
  });
});

/**
 * What the gateway makes of the event stream's owner: an older version's stream is adopted only
 * when what it relayed last is this outbox's; a change of owner is a warning naming
 * GW_EVENT_STREAM and both chains; bet dedup ids carry the chain, tick ids do not.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../../adapters/store/event-log/memory.ts';
import type { GatewayEvent } from './schemas.ts';
import { dedupIdsOf } from './shared-stream.ts';
import { adoptsWhenRelayedFrom, reportOwnership } from './stream-ownership.ts';

const G1 = 'GenesisOne1111111111111111111111111111111111';
const G2 = 'GenesisTwo2222222222222222222222222222222222';
const open = (id: string, bettor = 'Bettor1111111111111111111111111111111111111'): GatewayEvent => ({
  type: 'bet_open',
  id,
  bettor,
  side: 'UP',
  amountUnits: '100000000',
  entryPrice: 15_000_000_000,
  expireTime: 1_763_700_000,
});

async function outboxOf(...events: GatewayEvent[]) {
  const outbox = createMemoryEventLog<GatewayEvent>();
  for (const e of events) await outbox.append(e);
  return outbox;
}

describe('adopting a stream an older version made', () => {
  it('adopts it when the event it relayed last is the one this outbox holds under that seq', async () => {
    const adopt = adoptsWhenRelayedFrom(await outboxOf(open('1'), open('2')));
    expect(await adopt({ outboxSeq: 2, fields: JSON.parse(JSON.stringify(open('2'))) }, 2)).toBe(true);
    expect(await adopt({ outboxSeq: 1, fields: open('1') }, 1)).toBe(true);
  });

  it("does not when that event is another outbox's, is beyond this one, or the kept cursor is ahead of it", async () => {
    const adopt = adoptsWhenRelayedFrom(await outboxOf(open('1'), open('2')));
    expect(await adopt({ outboxSeq: 2, fields: open('2', 'Someone2222222222222222222222222222222222222') }, 2)).toBe(false);
    expect(await adopt({ outboxSeq: 3, fields: open('3') }, 3)).toBe(false);
    expect(await adopt({ outboxSeq: 2, fields: open('2') }, 5)).toBe(false);
    expect(await adopt({ outboxSeq: 0, fields: null }, 0)).toBe(false);
  });

  it('adopts a stream that relayed nothing and kept no cursor (ticks only), not one whose relayed events aged out', async () => {
    const adopt = adoptsWhenRelayedFrom(await outboxOf(open('1')));
    expect(await adopt(null, 0)).toBe(true);
    expect(await adopt(null, 1)).toBe(false);
  });
});

describe('reporting the owner', () => {
  const capture = () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    return { lines, log: pino({ level: 'info' }, sink) };
  };
  const at = { stream: 'GW_EVENTS', subjectPrefix: 'gw.events', genesis: G2, epoch: '2026-01-01T00:00:00Z' };

  it('warns on a change of owner, naming GW_EVENT_STREAM, both chains, the loss and how to keep deployments apart', () => {
    const { lines, log } = capture();
    reportOwnership(log, { kind: 'switched', previous: G1 }, at);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, GW_EVENT_STREAM: 'gw.events', genesis: G2, previousGenesis: G1 });
    const msg = String(lines[0]!.msg);
    for (const part of ['GW_EVENT_STREAM=gw.events', `chain ${G1}`, `chain ${G2}`, 'new epoch', 'events are gone', 'its own GW_EVENT_STREAM'])
      expect(msg).toContain(part);
  });

  it("says so, without a warning, when the stream was already this chain's, created or adopted", () => {
    const { lines, log } = capture();
    reportOwnership(log, { kind: 'ours' }, at);
    reportOwnership(log, { kind: 'created' }, at);
    reportOwnership(log, { kind: 'adopted' }, at);
    expect(lines.map((l) => l.level)).toEqual([30, 30, 30]);
  });
});

describe('dedup ids', () => {
  it('name a bet event by chain, id and kind, and a tick by its time and price alone', () => {
    const one = dedupIdsOf(G1);
    const two = dedupIdsOf(G2);
    expect(one({ ...open('1'), seq: 1 })).toBe('bet:GenesisO:1:bet_open');
    expect(two({ ...open('1'), seq: 1 })).not.toBe(one({ ...open('1'), seq: 1 }));
    const tick = { type: 'price' as const, symbol: 'solusdt' as const, price: '150.00000000', ts: 1_763_700_000_000, seq: 2 };
    expect(one(tick)).toBe('price:1763700000000:150.00000000');
    expect(two(tick)).toBe(one(tick));
  });
});

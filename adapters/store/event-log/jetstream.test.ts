import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { describeEventLog, type TestEvent } from './contract.ts';
import { openJetStreamEventLog } from './jetstream.ts';
import { setTimeout as sleep } from 'node:timers/promises';

let nc: NatsConnection | undefined;
const streams: string[] = [];
const connection = async () => (nc ??= await connect({ servers: inject('natsUrl') }));
const fresh = async (capacity?: number) => {
  const id = randomUUID().replaceAll('-', '');
  streams.push(`T_${id}`);
  return openJetStreamEventLog<TestEvent>(await connection(), { stream: `T_${id}`, subjectPrefix: `test.${id}`, ...(capacity ? { maxMsgs: capacity } : {}) });
};
afterAll(async () => {
  if (!nc) return;
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const jsm = await jetstreamManager(nc);
  for (const s of streams) {
    await jsm.streams.delete(s).catch(() => undefined);
    await jsm.streams.delete(`KV_${s}_RELAY`).catch(() => undefined);
  }
  await nc.close();
});

describeEventLog('jetstream', (capacity) => fresh(capacity));

describe('JetStream event log', () => {
  it('stores an event once per dedup id and answers its first seq', async () => {
    const log = await fresh();
    const a = await log.append({ type: 'test', n: 1 }, { dedupId: 'x' });
    await log.append({ type: 'test', n: 2 });
    const again = await log.append({ type: 'test', n: 1 }, { dedupId: 'x' });
    expect(again.seq).toBe(a.seq);
    expect((await log.readSince(0)).map((e) => e.n)).toEqual([1, 2]);
  });

  it('remembers the outbox seq of the last relayed event; follows live from a seq', async () => {
    const log = await fresh();
    expect(await log.lastOutboxSeq()).toBe(0);
    await log.appendFromOutbox({ type: 'test', n: 1 }, 41, 'bet:1');
    await log.append({ type: 'test', n: 2 });
    await log.appendFromOutbox({ type: 'test', n: 3 }, 42, 'bet:2');
    expect(await log.lastOutboxSeq()).toBe(42);
    await log.markRelayed(50); // kept beyond the stream's own history
    expect(await log.lastOutboxSeq()).toBe(50);
    const seen: number[] = [];
    const following = await log.follow(2, (e) => seen.push(e.seq));
    await log.append({ type: 'test', n: 4 });
    for (let i = 0; i < 100 && seen.length < 3; i++) await sleep(20);
    await following.stop();
    expect(seen).toEqual([2, 3, 4]);
  });

  it('names its history: the epoch stays with the stream; first and last seq', async () => {
    const log = await fresh();
    const epoch = await log.epoch();
    expect(epoch).toMatch(/\d{4}-\d\d-\d\dT/);
    expect(await log.firstSeq()).toBe(1);
    await log.append({ type: 'test', n: 1 });
    expect(await log.epoch()).toBe(epoch);
    expect([await log.firstSeq(), await log.lastSeq()]).toEqual([1, 1]);
  });
});

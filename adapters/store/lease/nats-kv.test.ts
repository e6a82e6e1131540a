import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { KV } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type RunningServer } from '../../../test/support/servers.ts';
import { createNatsKvFenceRecord, createNatsKvLease, openLeaderBucket } from './nats-kv.ts';

describe('NatsKvLease', () => {
  let server: RunningServer;
  let nc: NatsConnection;
  let n = 0;
  const bucket = (): Promise<KV> => openLeaderBucket(nc, { bucket: `LEASE_${++n}`, replicas: 1 });
  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('is held by one node at a time; each new holder gets a higher fence', async () => {
    const kv = await bucket();
    const a = createNatsKvLease(kv, { node: 'a', ttlMs: 5_000 });
    const b = createNatsKvLease(kv, { node: 'b', ttlMs: 5_000 });
    const first = await a.acquire();
    expect(first).toBeGreaterThan(0);
    expect(await b.acquire()).toBeNull();
    expect(await a.renew()).toBe(true);
    // its own lease taken again (after its renewals failed, say): a new, higher fence, never the one it had
    const again = await a.acquire();
    expect(again).toBeGreaterThan(first!);
    expect(await a.holder()).toBe(`a:${again}`);
    await a.release();
    const second = await b.acquire();
    expect(second).toBeGreaterThan(again!);
    expect(await a.renew()).toBe(false);
    expect(await b.holder()).toBe(`b:${second}`);
  });

  it('passes to another node once its revision stood still for a TTL; the old holder can neither renew nor release it', async () => {
    const kv = await bucket();
    let now = 0;
    const a = createNatsKvLease(kv, { node: 'a', ttlMs: 1_000 });
    const b = createNatsKvLease(kv, { node: 'b', ttlMs: 1_000 }, () => now);
    const fa = await a.acquire();
    expect(await b.acquire()).toBeNull(); // b starts watching a's revision
    now = 900;
    expect(await a.renew()).toBe(true); // a new revision: b's clock starts again
    expect(await b.acquire()).toBeNull();
    now = 1_800;
    expect(await b.acquire()).toBeNull(); // 900 ms since the renewal was seen
    now = 1_900;
    const fb = await b.acquire();
    expect(fb).toBeGreaterThan(fa!);
    expect(await a.renew()).toBe(false);
    await a.release();
    expect(await b.holder()).toBe(`b:${fb}`);
  });

  it('records the highest fence used and refuses a lower one', async () => {
    const kv = await bucket();
    const fences = createNatsKvFenceRecord(kv);
    expect(await fences.highest()).toBe(0);
    expect(await fences.use(5)).toBe(true);
    expect(await fences.use(5)).toBe(true);
    expect(await fences.use(9)).toBe(true);
    expect(await fences.use(5)).toBe(false);
    expect(await fences.highest()).toBe(9);
    // racing users: the highest wins, every lower one is refused afterwards
    await Promise.all([3, 12, 10, 11].map((f) => fences.use(f)));
    expect(await fences.highest()).toBe(12);
    expect(await fences.use(11)).toBe(false);
  });
});

import { connect, type NatsConnection } from '@nats-io/transport-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotLeading } from '../../../adapters/chain/port.ts';
import { createNatsKvFenceRecord, createNatsKvLease, openLeaderBucket } from '../../../adapters/store/lease/nats-kv.ts';
import { startNatsServer, type RunningServer } from '../../../test/support/servers.ts';
import { fenceGuard } from './fence-guard.ts';
import { LeaseHold } from './lease-hold.ts';

const log = pino({ level: 'silent' });

describe('fence guard', () => {
  let server: RunningServer;
  let nc: NatsConnection;
  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('lets the newest leader act and stops an older one that comes back, dropping its hold', async () => {
    const kv = await openLeaderBucket(nc, { bucket: 'GUARD', replicas: 1 });
    const fences = createNatsKvFenceRecord(kv);
    let now = 0;
    const a = createNatsKvLease(kv, { node: 'a', ttlMs: 1_000 });
    const b = createNatsKvLease(kv, { node: 'b', ttlMs: 1_000 }, () => now);
    const fa = (await a.acquire())!;
    const holdA = new LeaseHold();
    holdA.forever();
    const guardA = fenceGuard({ fences, fence: () => fa, hold: holdA, log });
    await guardA('close_bet'); // a leads: allowed

    // a is paused: b sees its revision stand still for a TTL and takes over, then closes a bet
    expect(await b.acquire()).toBeNull();
    now = 1_000;
    const fb = (await b.acquire())!;
    expect(fb).toBeGreaterThan(fa);
    const guardB = fenceGuard({ fences, fence: () => fb, hold: new LeaseHold(), log });
    await guardB('close_bet');

    // a wakes with its old fence (its hold still says yes): refused, and it stops holding
    expect(holdA.holds()).toBe(true);
    await expect(guardA('close_bet')).rejects.toBeInstanceOf(NotLeading);
    expect(holdA.holds()).toBe(false);
    await guardB('close_bet'); // b goes on
    await expect(fenceGuard({ fences, fence: () => null, hold: new LeaseHold(), log })('close_bet')).rejects.toBeInstanceOf(NotLeading);
  });
});

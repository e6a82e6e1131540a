import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createRedisFenceRecord, createRedisLease } from '../../../adapters/store/lease/redis.ts';
import { NotLeading } from '../../../adapters/chain/port.ts';
import { fenceGuard } from './fence-guard.ts';
import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import { LeaseHold } from './lease-hold.ts';
import { startLeaseLeadership, type LeaderRole } from './leadership.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const redis = sharedTestRedis();
const log = pino({ level: 'silent' });
const until = async (check: () => boolean, ms = 3_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(10);
};

/** A role that records its starts (with their fences) and stops. */
function recordingRole() {
  const calls: string[] = [];
  const role: LeaderRole = {
    async start(fence) {
      calls.push(`start ${fence}`);
    },
    async stop() {
      calls.push('stop');
    },
  };
  return { calls, role };
}

describe('lease leadership', () => {
  it('one of two nodes leads; when it stops, the other takes over with a higher fence', async () => {
    const key = `${redis.prefix()}leader`;
    const a = recordingRole();
    const b = recordingRole();
    const la = startLeaseLeadership({ lease: createRedisLease(redis.redis(), { key, node: 'a', ttlMs: 300 }), role: a.role, log });
    await until(() => la.isLeader());
    const lb = startLeaseLeadership({ lease: createRedisLease(redis.redis(), { key, node: 'b', ttlMs: 300 }), role: b.role, log });
    await sleep(400);
    expect([la.isLeader(), lb.isLeader()]).toEqual([true, false]);
    const first = la.fence()!;
    await la.stop();
    expect(a.calls).toEqual([`start ${first}`, 'stop']);
    await until(() => lb.isLeader());
    expect(lb.fence()).toBeGreaterThan(first);
    expect(b.calls).toEqual([`start ${lb.fence()}`]);
    await lb.stop();
  });

  it('a leader told by the fence guard that a newer leader used a higher fence gives its lease up, and another node leads above that fence', async () => {
    const key = `${redis.prefix()}leader`;
    const fences = createRedisFenceRecord(redis.redis(), key);
    const a = recordingRole();
    const b = recordingRole();
    const holdA = new LeaseHold();
    const la = startLeaseLeadership({ lease: createRedisLease(redis.redis(), { key, node: 'a', ttlMs: 300 }), fences, role: a.role, log, hold: holdA });
    await until(() => la.isLeader());
    const lb = startLeaseLeadership({ lease: createRedisLease(redis.redis(), { key, node: 'b', ttlMs: 300 }), fences, role: b.role, log });
    const first = la.fence()!;
    // a leader in between (a itself cut off and back, as after a lease store failover) took fence first + 100 and acted with it
    await redis.redis().incrby(`${key}:fence`, 100);
    expect(await fences.use(first + 100)).toBe(true);
    // a's next close is refused; renewing its lease would keep b from leading for good: it gives the lease up
    await expect(fenceGuard({ fences, fence: () => la.fence(), hold: holdA, log })('close_bet')).rejects.toBeInstanceOf(NotLeading);
    await until(() => lb.isLeader());
    expect(la.isLeader()).toBe(false);
    expect(a.calls).toEqual([`start ${first}`, 'stop']);
    expect(lb.fence()).toBeGreaterThan(first + 100);
    await Promise.all([la.stop(), lb.stop()]);
  });

  it('a leader whose lease was taken stops its role, and says it was elected and lost', async () => {
    const key = `${redis.prefix()}leader`;
    const a = recordingRole();
    const changes: boolean[] = [];
    const la = startLeaseLeadership({
      lease: createRedisLease(redis.redis(), { key, node: 'a', ttlMs: 300 }),
      role: a.role,
      log,
      changed: (leading) => changes.push(leading),
    });
    await until(() => la.isLeader());
    await redis.redis().set(key, 'intruder:999', 'PX', 5_000);
    await until(() => !la.isLeader());
    expect(a.calls.at(-1)).toBe('stop');
    // gateway_leader_changes_total: elected, then lost (docs/operations.md#metrics)
    await until(() => changes.length === 2);
    expect(changes).toEqual([true, false]);
    await la.stop();
    expect(changes).toEqual([true, false]);
  });

  it('a leader stops holding the moment its lease may have passed on the monotonic clock, before any renewal says so', async () => {
    const key = `${redis.prefix()}leader`;
    const a = recordingRole();
    let skew = 0; // a process paused (SIGSTOP) and resumed: its monotonic clock jumped while its timers did not run
    const la = startLeaseLeadership({
      lease: createRedisLease(redis.redis(), { key, node: 'a', ttlMs: 3_000 }),
      role: a.role,
      log,
      hold: new LeaseHold(() => performance.now() + skew),
    });
    await until(() => la.isLeader());
    expect(la.holds()).toBe(true);
    skew = 2_800; // within the TTL, but past what it counts on (TTL less its margin)
    expect(la.holds()).toBe(false);
    expect(la.isLeader()).toBe(false);
    skew = 0;
    expect(la.holds()).toBe(true); // not deposed: the next renewal decides
    await la.stop();
  });

  it('a refresh whose restart waits on the store longer than the lease keeps the lease: renewals go on beside it, and no other node leads', async () => {
    const key = `${redis.prefix()}leader`;
    let slowStart = false;
    const calls: string[] = [];
    const role: LeaderRole = {
      async start(fence) {
        calls.push(`start ${fence}`);
        if (slowStart) await sleep(1_000); // a store failing over, 3 TTLs long
      },
      async stop() {
        calls.push('stop');
      },
    };
    const la = startLeaseLeadership({ lease: createRedisLease(redis.redis(), { key, node: 'a', ttlMs: 300 }), role, log });
    await until(() => la.isLeader());
    const lb = startLeaseLeadership({ lease: createRedisLease(redis.redis(), { key, node: 'b', ttlMs: 300 }), role: recordingRole().role, log });
    const fence = la.fence()!;
    slowStart = true;
    la.refresh('redis failed over');
    const seen: boolean[] = [];
    for (let i = 0; i < 30; i++) {
      seen.push(lb.isLeader());
      await sleep(50);
    }
    expect(seen.every((leads) => !leads)).toBe(true);
    expect(la.isLeader()).toBe(true);
    expect(la.fence()).toBe(fence);
    await until(() => calls.length === 2);
    expect(calls).toEqual([`start ${fence}`, `start ${fence}`]); // elected, then started again under the same fence
    await Promise.all([la.stop(), lb.stop()]);
  });

  it('a restart that fails is tried again at the next rounds with the lease kept; only after restartRetryMs does the node give the lease up', async () => {
    const key = `${redis.prefix()}leader`;
    let failing = 0;
    const calls: string[] = [];
    const role: LeaderRole = {
      async start(fence) {
        calls.push(`start ${fence}`);
        if (failing > 0) {
          failing--;
          throw new Error('redis is unavailable');
        }
      },
      async stop() {
        calls.push('stop');
      },
    };
    const la = startLeaseLeadership({ lease: createRedisLease(redis.redis(), { key, node: 'a', ttlMs: 300 }), role, log, restartRetryMs: 2_000 });
    await until(() => la.isLeader());
    const fence = la.fence()!;
    failing = 3;
    la.refresh('redis failed over');
    await until(() => failing === 0 && calls.at(-1) === `start ${fence}`);
    await sleep(200);
    expect(la.isLeader()).toBe(true);
    expect(la.fence()).toBe(fence);
    expect(calls.filter((c) => c === `start ${fence}`)).toHaveLength(5); // the election, three failed restarts, the one that worked

    // a role that never starts again: the lease is given up after restartRetryMs, and another node leads
    failing = Number.POSITIVE_INFINITY;
    const lb = startLeaseLeadership({ lease: createRedisLease(redis.redis(), { key, node: 'b', ttlMs: 300 }), role: recordingRole().role, log });
    la.refresh('redis failed over again');
    await sleep(1_000);
    expect(la.isLeader()).toBe(true); // still within restartRetryMs
    await until(() => lb.isLeader(), 5_000);
    expect(la.isLeader()).toBe(false);
    expect(lb.fence()).toBeGreaterThan(fence);
    await Promise.all([la.stop(), lb.stop()]);
  });
});

import { describe, expect, it } from 'vitest';
import { createRedisBetHistory, redisHistoryLayout } from './redis.ts';
import type { BetRecord } from './port.ts';
import { createRedisSnapshotStore } from '../snapshot/redis.ts';
import { betHistoryContract, record } from './contract.ts';
import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';

// real Redis, every key under a prefix owned by this run (never FLUSHDB a shared server)
const shared = sharedTestRedis();

betHistoryContract('redis', () => createRedisBetHistory(shared.redis(), { prefix: shared.prefix() }));

describe('redis bet history layout', () => {
  it('keeps one JSON record per bet and sorted indexes an operator can read', async () => {
    const prefix = shared.prefix();
    const h = createRedisBetHistory(shared.redis(), { prefix });
    await h.put(record('41'));
    const r = shared.redis();
    expect(JSON.parse((await r.get(`${prefix}hist:bet:41`)) ?? 'null')).toEqual(record('41'));
    expect(await r.zrange(`${prefix}hist:bettor:${record('41').bettor}`, '0', '-1')).toEqual(['41']);
    expect(Number(await r.zscore(`${prefix}hist:opened`, '41'))).toBe(record('41').openedAt);
    await r.set(`${prefix}hist:bet:41`, '{damaged');
    expect(await h.get('41')).toBeNull();
  });
});

describe('bet history written by snapshot commits', () => {
  it('writes the records a commit carries with the snapshot, and the store reads them with their indexes', async () => {
    const prefix = shared.prefix();
    const snapshots = createRedisSnapshotStore<{ type: 'bet_closed'; id: string }, BetRecord>(shared.redis(), {
      kind: 'bet',
      prefix,
      records: redisHistoryLayout(prefix),
    });
    const h = createRedisBetHistory(shared.redis(), { prefix });
    const open = record('7');
    await snapshots.commit('7', { snapshot: { status: 'active' }, final: false, events: [], rev: 1, records: [open] });
    expect(await h.get('7')).toEqual(open);
    const closed = record('7', { status: 2, exitPrice: 14_999_000_000, closedAt: 1_763_700_030_000, netUnits: '-100000000', closeTx: 'sig-close' });
    const out = await snapshots.commit('7', {
      snapshot: { status: 'done' },
      final: true,
      events: [{ type: 'bet_closed', id: '7' }],
      rev: 2,
      records: [closed, record('8', { prevId: '7' })],
    });
    expect(out.applied).toBe(true);
    expect(await h.get('7')).toEqual(closed);
    expect((await h.closedSince(0)).map((r) => r.id)).toEqual(['7']);
    expect((await h.pageOf(open.bettor, 10)).map((r) => r.id)).toEqual(['8', '7']);
    // a retried commit (same rev) writes nothing: not the stale record it carries either
    expect(await snapshots.commit('7', { snapshot: { status: 'done' }, final: true, events: [], rev: 2, records: [open] })).toEqual({ applied: false });
    expect(await h.get('7')).toEqual(closed);
  });

  it('refuses records when made without a layout (they would be lost)', async () => {
    const snapshots = createRedisSnapshotStore<{ type: 'x' }, BetRecord>(shared.redis(), { kind: 'bet', prefix: shared.prefix() });
    await expect(snapshots.commit('1', { snapshot: {}, final: false, events: [], rev: 1, records: [record('1')] })).rejects.toThrow(/without a record layout/);
  });
});

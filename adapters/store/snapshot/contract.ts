/**
 * The behaviour every `SnapshotStore` must have, as one vitest suite that each adapter's test
 * file runs against its own store (with the event log the store appends to).
 */
import { describe, expect, it } from 'vitest';
import type { EventLog, LoggedEvent } from '../event-log/port.ts';
import type { SnapshotStore } from './port.ts';

/** The events the contract commits. */
export interface ContractEvent extends LoggedEvent {
  type: 'bet_open' | 'bet_closed';
  id: string;
}

/** A store and the event log its commits append to. */
export interface StoreUnderTest {
  store: SnapshotStore<ContractEvent>;
  events: EventLog<LoggedEvent>;
}

/** Saves a snapshot without events (setup helper). */
export async function save(store: SnapshotStore<ContractEvent>, id: string, snapshot: unknown, final: boolean, rev: number): Promise<void> {
  await store.commit(id, { snapshot, final, events: [], rev });
}

/** Runs the SnapshotStore contract against stores made by `make` (a fresh, empty store per call). */
export function snapshotStoreContract(name: string, make: () => StoreUnderTest | Promise<StoreUnderTest>): void {
  describe(`${name} snapshot store`, () => {
    it('returns null for an id never saved', async () => {
      const { store } = await make();
      expect(await store.load('404')).toBeNull();
      expect(await store.isLive('404')).toBe(false);
      expect(await store.loadLive()).toEqual([]);
    });

    it('round-trips a snapshot through JSON and keeps the latest commit', async () => {
      const { store } = await make();
      await save(store, '1', { status: 'active', value: { open: 'placed' }, context: { id: '1', n: 1 } }, false, 1);
      await save(store, '1', { status: 'active', value: { settling: 'pricing' }, context: { id: '1', n: 2, gone: undefined } }, false, 2);
      expect(await store.load('1')).toEqual({ status: 'active', value: { settling: 'pricing' }, context: { id: '1', n: 2 } });
      expect(await store.isLive('1')).toBe(true);
    });

    it('lists live snapshots with their rev; a final one stays readable but is not rehydrated', async () => {
      const { store } = await make();
      await save(store, '1', { status: 'active', n: 1 }, false, 1);
      await save(store, '2', { status: 'active', n: 2 }, false, 1);
      await save(store, '2', { status: 'done', n: 3 }, true, 2);
      await save(store, '3', { status: 'active', n: 4 }, false, 7);
      const live = await store.loadLive();
      expect(live.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: '1', snapshot: { status: 'active', n: 1 }, rev: 1 },
        { id: '3', snapshot: { status: 'active', n: 4 }, rev: 7 },
      ]);
      expect(await store.load('2')).toEqual({ status: 'done', n: 3 });
      expect(await store.isLive('2')).toBe(false);
    });

    it("appends a commit's events to the event log with increasing seqs, in the same step as the snapshot", async () => {
      const { store, events } = await make();
      const before = await events.lastSeq();
      const first = await store.commit('9', { snapshot: { status: 'active' }, final: false, events: [{ type: 'bet_open', id: '9' }], rev: 1 });
      const last = await store.commit('9', { snapshot: { status: 'done' }, final: true, events: [{ type: 'bet_closed', id: '9' }], rev: 2 });
      expect(first).toEqual({ applied: true, events: [{ type: 'bet_open', id: '9', seq: before + 1 }] });
      expect(last).toEqual({ applied: true, events: [{ type: 'bet_closed', id: '9', seq: before + 2 }] });
      expect(await events.readSince(before)).toEqual([
        { type: 'bet_open', id: '9', seq: before + 1 },
        { type: 'bet_closed', id: '9', seq: before + 2 },
      ]);
      expect(await store.isLive('9')).toBe(false);
    });

    it('ignores a commit whose rev is already stored: a retried commit never appends its events twice', async () => {
      const { store, events } = await make();
      await store.commit('5', { snapshot: { status: 'active', n: 1 }, final: false, events: [{ type: 'bet_open', id: '5' }], rev: 1 });
      const seq = await events.lastSeq();
      expect(await store.commit('5', { snapshot: { status: 'active', n: 1 }, final: false, events: [{ type: 'bet_open', id: '5' }], rev: 1 })).toEqual({
        applied: false,
      });
      await store.commit('5', { snapshot: { status: 'done', n: 2 }, final: true, events: [{ type: 'bet_closed', id: '5' }], rev: 2 });
      expect(await store.commit('5', { snapshot: { status: 'done', n: 2 }, final: true, events: [{ type: 'bet_closed', id: '5' }], rev: 2 })).toEqual({
        applied: false,
      });
      expect((await events.readSince(seq - 1)).map((e) => e.type)).toEqual(['bet_open', 'bet_closed']);
      expect(await store.load('5')).toEqual({ status: 'done', n: 2 });
    });
  });
}

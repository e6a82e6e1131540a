/**
 * The behaviour every `SnapshotStore` must have, as one vitest suite that each adapter's test
 * file runs against its own store.
 */
import { describe, expect, it } from 'vitest';
import type { SnapshotStore } from '../../adapters/store/snapshot-port.ts';

/** Runs the SnapshotStore contract against stores made by `make` (a fresh, empty store per call). */
export function snapshotStoreContract(name: string, make: () => SnapshotStore): void {
  describe(`${name} snapshot store`, () => {
    it('returns null for an id never saved', async () => {
      const store = make();
      expect(await store.load('404')).toBeNull();
      expect(await store.isLive('404')).toBe(false);
      expect(await store.loadLive()).toEqual([]);
    });

    it('round-trips a snapshot through JSON and keeps the latest save', async () => {
      const store = make();
      await store.save('1', { status: 'active', value: { open: 'placed' }, context: { id: '1', n: 1 } }, false);
      await store.save('1', { status: 'active', value: { settling: 'pricing' }, context: { id: '1', n: 2, gone: undefined } }, false);
      expect(await store.load('1')).toEqual({ status: 'active', value: { settling: 'pricing' }, context: { id: '1', n: 2 } });
      expect(await store.isLive('1')).toBe(true);
    });

    it('lists live snapshots only; a final one stays readable but is not rehydrated', async () => {
      const store = make();
      await store.save('1', { status: 'active', n: 1 }, false);
      await store.save('2', { status: 'active', n: 2 }, false);
      await store.save('2', { status: 'done', n: 3 }, true);
      await store.save('3', { status: 'active', n: 4 }, false);
      const live = await store.loadLive();
      expect(live.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: '1', snapshot: { status: 'active', n: 1 } },
        { id: '3', snapshot: { status: 'active', n: 4 } },
      ]);
      expect(await store.load('2')).toEqual({ status: 'done', n: 3 });
      expect(await store.isLive('2')).toBe(false);
    });
  });
}

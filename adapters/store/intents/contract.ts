/** Behaviour every IntentStore backend must show; run by each backend's test file. */
import { describe, expect, it } from 'vitest';
import { ABANDONED_AFTER_MS, type IntentStore, type PendingIntent } from './port.ts';

/** Storage that can be opened again over the same data (a restart). */
export interface IntentStoreFixture {
  open(): Promise<IntentStore>;
  /** closes what `open` opened (file handles) */
  close?(store: IntentStore): Promise<void>;
}

const intent = (key: string, signature: string, height = 100, owner = 'engine-1', since = Date.now()): PendingIntent => ({
  key,
  what: 'place_bet',
  signature,
  wire: Buffer.from(signature).toString('base64'),
  lastValidBlockHeight: height,
  since,
  owner,
});

export function describeIntentStore(name: string, fresh: () => Promise<IntentStoreFixture>): void {
  describe(`IntentStore contract: ${name}`, () => {
    it('records, replaces by key, and removes only the signing it names', async () => {
      const store = await (await fresh()).open();
      expect(await store.list()).toEqual([]);
      const [a1, b1, a2] = [intent('place_bet:a', 'sig-a1'), intent('place_bet:b', 'sig-b1'), intent('place_bet:a', 'sig-a2', 250)];
      expect(await store.put(a1)).toBe(true);
      expect(await store.put(b1)).toBe(true);
      expect(await store.put(a2)).toBe(true); // signed again by the same engine
      await store.remove('place_bet:a', 'sig-a1'); // the older signing: the later stays
      const listed = (await store.list()).sort((x, y) => x.key.localeCompare(y.key));
      expect(listed).toEqual([a2, b1]);
      await store.remove('place_bet:a', 'sig-a2');
      await store.remove('place_bet:missing', 'sig');
      expect(await store.list()).toEqual([b1]);
    });

    it("never records over another engine's live intent for the same key; takes over one too old to land", async () => {
      const store = await (await fresh()).open();
      const mine = intent('place_bet:x', 'sig-mine', 100, 'engine-1');
      expect(await store.put(mine)).toBe(true);
      expect(await store.put(intent('place_bet:x', 'sig-theirs', 100, 'engine-2'))).toBe(false);
      expect(await store.list()).toEqual([mine]);
      // concurrent claims of a free key by several engines: exactly one is recorded
      const claims = await Promise.all([2, 3, 4, 5].map((n) => store.put(intent('place_bet:y', `sig-${n}`, 100, `engine-${n}`))));
      expect(claims.filter(Boolean)).toHaveLength(1);
      const winner = `sig-${2 + claims.indexOf(true)}`;
      expect((await store.list()).find((i) => i.key === 'place_bet:y')?.signature).toBe(winner);
      // a record of an older version (no owner) is another engine's; one abandoned long ago is free
      const legacy: PendingIntent = {
        key: 'place_bet:w',
        what: 'place_bet',
        signature: 'sig-legacy',
        wire: 'AA==',
        lastValidBlockHeight: 1,
        since: Date.now(),
      };
      expect(await store.put(legacy)).toBe(true);
      expect(await store.put(intent('place_bet:w', 'sig-w', 100, 'engine-1'))).toBe(false);
      const stale = intent('place_bet:z', 'sig-old', 100, 'engine-9', Date.now() - ABANDONED_AFTER_MS - 1_000);
      expect(await store.put(stale)).toBe(true);
      const taker = intent('place_bet:z', 'sig-new', 100, 'engine-1');
      expect(await store.put(taker)).toBe(true);
      expect((await store.list()).find((i) => i.key === 'place_bet:z')).toEqual(taker);
      // one whose blockhash has expired (the block height is past its last valid one) is free too
      const other = intent('place_bet:z', 'sig-other', 300, 'engine-2');
      expect(await store.put(other, 100)).toBe(false); // height 100: sig-new (valid to 100) can still land
      expect(await store.put(other, 101)).toBe(true);
      expect((await store.list()).find((i) => i.key === 'place_bet:z')).toEqual(other);
    });

    it('what was recorded is there after a restart', async () => {
      const fixture = await fresh();
      const first = await fixture.open();
      await Promise.all(Array.from({ length: 50 }, (_, i) => first.put(intent(`place_bet:${i}`, `sig-${i}`))));
      await Promise.all(Array.from({ length: 25 }, (_, i) => first.remove(`place_bet:${i}`, `sig-${i}`)));
      await fixture.close?.(first);
      const again = await fixture.open();
      const keys = (await again.list()).map((i) => i.key).sort();
      expect(keys).toEqual(Array.from({ length: 25 }, (_, i) => `place_bet:${i + 25}`).sort());
      await fixture.close?.(again);
    });
  });
}

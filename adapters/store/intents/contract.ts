/** Behaviour every IntentStore backend must show; run by each backend's test file. */
import { describe, expect, it } from 'vitest';
import type { IntentStore, PendingIntent } from './port.ts';

/** Storage that can be opened again over the same data (a restart). */
export interface IntentStoreFixture {
  open(): Promise<IntentStore>;
  /** closes what `open` opened (file handles) */
  close?(store: IntentStore): Promise<void>;
}

const intent = (key: string, signature: string, height = 100): PendingIntent => ({
  key,
  what: 'place_bet',
  signature,
  wire: Buffer.from(signature).toString('base64'),
  lastValidBlockHeight: height,
  since: 1_763_700_000_000,
});

export function describeIntentStore(name: string, fresh: () => Promise<IntentStoreFixture>): void {
  describe(`IntentStore contract: ${name}`, () => {
    it('records, replaces by key, and removes only the signing it names', async () => {
      const store = await (await fresh()).open();
      expect(await store.list()).toEqual([]);
      await store.put(intent('place_bet:a', 'sig-a1'));
      await store.put(intent('place_bet:b', 'sig-b1'));
      await store.put(intent('place_bet:a', 'sig-a2', 250)); // signed again
      await store.remove('place_bet:a', 'sig-a1'); // the older signing: the later stays
      const listed = (await store.list()).sort((x, y) => x.key.localeCompare(y.key));
      expect(listed).toEqual([intent('place_bet:a', 'sig-a2', 250), intent('place_bet:b', 'sig-b1')]);
      await store.remove('place_bet:a', 'sig-a2');
      await store.remove('place_bet:missing', 'sig');
      expect(await store.list()).toEqual([intent('place_bet:b', 'sig-b1')]);
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

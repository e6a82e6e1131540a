import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeIntentStore } from './contract.ts';
import { openFileIntentStore, type FileIntentStore } from './file.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const freshPath = () => join(tempDir('intents-'), 'intents.log');

describeIntentStore('file', async () => {
  const path = freshPath();
  return { open: async () => openFileIntentStore(path), close: async (s) => (s as FileIntentStore).close() };
});

describe('file intent store specifics', () => {
  it('compacts to the live intents once the file holds many more lines than intents', async () => {
    const path = freshPath();
    const store = openFileIntentStore(path);
    for (let i = 0; i < 1_200; i++) {
      await store.put({ key: `k${i % 3}`, what: 'close_bet', signature: `s${i}`, wire: 'AA==', lastValidBlockHeight: i, since: i });
    }
    store.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(400);
    const again = openFileIntentStore(path);
    expect((await again.list()).map((i) => i.signature).sort()).toEqual(['s1197', 's1198', 's1199']);
    again.close();
  });
});

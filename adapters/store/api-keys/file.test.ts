import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveApiKeySealKey } from './codec.ts';
import { describeApiKeyStore } from './contract.ts';
import { openFileApiKeyStore } from './file.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempFile = (): string => {
  const d = tempDir('api-keys-');
  dirs.push(d);
  return join(d, 'exchange', 'api-keys.json');
};

describeApiKeyStore('file', true, async () => {
  const file = tempFile();
  return { open: (key) => openFileApiKeyStore(file, key), raw: async () => readFileSync(file, 'utf8') };
});

describe('file api key store specifics', () => {
  it('writes the file with mode 0600 and refuses a file in an unknown format', async () => {
    const file = tempFile();
    const key = deriveApiKeySealKey('file specifics');
    const store = await openFileApiKeyStore(file, key);
    await store.put({ apiKey: 'k'.repeat(64), accountId: 'a', type: 'HMAC_SHA256', secret: 's', label: null, createdAt: new Date().toISOString() });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const other = tempFile();
    await openFileApiKeyStore(other, key).then((s) => s.deleteAccount('nobody'));
    (await import('node:fs')).writeFileSync(other, '{"version":2}');
    await expect(openFileApiKeyStore(other, key)).rejects.toThrow(/unknown format/);
  });
});

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveKeystoreKey } from './crypto.ts';
import { openFileKeyStore } from './file.ts';
import { describeKeyStore } from './contract.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const keystoreDir = (): string => tempDir('keystore-');

describeKeyStore('file', async () => {
  const dir = keystoreDir();
  const file = join(dir, 'keystore.json');
  const load = () => JSON.parse(readFileSync(file, 'utf8')) as { version: 1; records: Record<string, string> };
  return {
    open: (key) => openFileKeyStore(dir, key),
    raw: async (name) => load().records[name],
    tamper: async (name, mutate) => {
      const data = load();
      data.records[name] = mutate(data.records[name] ?? '');
      writeFileSync(file, JSON.stringify(data));
    },
  };
});

describe('file key store specifics', () => {
  const key = deriveKeystoreKey('file specifics secret');

  it('writes the file with mode 0600 and leaves no temp files', async () => {
    const dir = keystoreDir();
    const store = await openFileKeyStore(dir, key);
    await Promise.all(Array.from({ length: 20 }, () => store.create()));
    expect(readdirSync(dir)).toEqual(['keystore.json']);
    expect(statSync(join(dir, 'keystore.json')).mode & 0o777).toBe(0o600);
    expect((await openFileKeyStore(dir, key).then((s) => s.list())).length).toBe(20);
  });

  it('refuses a file in an unknown format', async () => {
    const dir = keystoreDir();
    writeFileSync(join(dir, 'keystore.json'), '{"version":2}');
    await expect(openFileKeyStore(dir, key)).rejects.toThrow(/unknown format/);
  });
});

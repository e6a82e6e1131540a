/**
 * File KeyStore (embedded default without Redis): `<DATA_DIR>/keystore.json` holding
 * `{"version":1,"records":{"<address>":"<sealed>"}}`, rewritten atomically (temp file, fsync,
 * rename) on every change, mode 0600. One process per file: writes are serialised in-process only.
 */
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../file/atomic-file.ts';
import type { KeyStore } from './port.ts';
import { openSealedKeyStore, type SealedRecords } from './sealed.ts';

interface FileShape {
  version: 1;
  records: Record<string, string>;
}

async function readRecords(file: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<FileShape>;
  if (parsed.version !== 1 || typeof parsed.records !== 'object' || parsed.records === null) {
    throw new Error(`key store file ${file} has an unknown format`);
  }
  for (const [name, value] of Object.entries(parsed.records)) {
    if (typeof value !== 'string') throw new Error(`key store file ${file}: record ${name} is not a string`);
  }
  return { ...parsed.records };
}

/** Opens (or creates) the key store file in `dataDir`, encrypted with `key` (see `deriveKeystoreKey`). */
export async function openFileKeyStore(dataDir: string, key: Buffer): Promise<KeyStore> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'keystore.json');
  const records = await readRecords(file);
  let writing: Promise<void> = Promise.resolve();

  const backend: SealedRecords = {
    get: async (name) => (Object.hasOwn(records, name) ? records[name] : undefined),
    names: async () => Object.keys(records),
    async putIfAbsent(name, value) {
      if (Object.hasOwn(records, name)) return false;
      records[name] = value;
      const snapshot = JSON.stringify({ version: 1, records } satisfies FileShape, null, 1);
      const done = writing.then(() => writeFileAtomically(file, snapshot));
      writing = done.catch(() => undefined);
      try {
        await done;
      } catch (err) {
        delete records[name];
        throw err;
      }
      return true;
    },
  };
  return openSealedKeyStore(backend, key);
}

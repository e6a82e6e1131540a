/**
 * The server key that seals HMAC secrets at rest (docs/decisions.md#api-key-secrets):
 * `EXCHANGE_API_KEY_SECRET` when set, else a random secret generated once into
 * `<DATA_DIR>/exchange/api-keys.secret` (mode 0600) and read back on every start.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../kernel/errors.ts';
import { deriveApiKeySealKey } from './codec.ts';

/** The sealing key and where its secret came from (for a boot log line; never log the secret). */
export interface ApiKeyServerKey {
  key: Buffer;
  source: 'env' | 'file-created' | 'file';
  file?: string;
}

/** Resolves the server key as described above. */
export function resolveApiKeyServerKey(secret: string | undefined, dataDir: string): ApiKeyServerKey {
  if (secret !== undefined && secret !== '') return { key: deriveApiKeySealKey(secret), source: 'env' };
  const dir = join(dataDir, 'exchange');
  const file = join(dir, 'api-keys.secret');
  mkdirSync(dir, { recursive: true });
  let source: ApiKeyServerKey['source'] = 'file';
  try {
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    source = 'file-created';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
  const text = readFileSync(file, 'utf8').trim();
  if (text === '') throw new ConfigError('EXCHANGE_API_KEY_SECRET', `unset and ${file} is empty`);
  return { key: deriveApiKeySealKey(text), source, file };
}

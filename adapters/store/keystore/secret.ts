/**
 * Where the key store's secret comes from (`GW_KEYSTORE_SECRET`, docs/operations.md#processes):
 * the variable when set; in test mode without it, a random secret generated once and kept in
 * `<DATA_DIR>/keystore.secret` (mode 0600) so restarts can still open the keys; in prod without
 * it, a ConfigError that stops the boot.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../kernel/errors.ts';

/** Inputs of `resolveKeystoreSecret`. */
export interface KeystoreSecretSource {
  /** `GW_KEYSTORE_SECRET`, possibly unset */
  secret: string | undefined;
  /** `SMART_MODE` */
  mode: 'test' | 'prod';
  /** `DATA_DIR` */
  dataDir: string;
}

/** The secret and where it came from (for a boot log line; never log the secret). */
export interface KeystoreSecret {
  secret: string;
  source: 'env' | 'file-created' | 'file';
  file?: string;
}

/** Resolves the key store secret as described above. */
export function resolveKeystoreSecret({ secret, mode, dataDir }: KeystoreSecretSource): KeystoreSecret {
  if (secret !== undefined && secret !== '') return { secret, source: 'env' };
  if (mode !== 'test') throw new ConfigError('GW_KEYSTORE_SECRET', 'is required when SMART_MODE=prod (custodial keys are encrypted with it)');
  const file = join(dataDir, 'keystore.secret');
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    return { secret: readSecretFile(file), source: 'file-created', file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // An existing secret file: tighten its mode if someone loosened it.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return { secret: readSecretFile(file), source: 'file', file };
}

function readSecretFile(file: string): string {
  const s = readFileSync(file, 'utf8').trim();
  if (s.length === 0) throw new ConfigError('GW_KEYSTORE_SECRET', `unset and ${file} is empty`);
  return s;
}

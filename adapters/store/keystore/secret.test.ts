import { mkdtempSync, readFileSync, rmSync, statSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../kernel/errors.ts';
import { resolveKeystoreSecret } from './secret.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'kssecret-'));
  dirs.push(d);
  return join(d, 'data');
};

describe('resolveKeystoreSecret', () => {
  it('uses GW_KEYSTORE_SECRET when set, in any mode', () => {
    expect(resolveKeystoreSecret({ secret: 's3cret', mode: 'prod', dataDir: tempDir() })).toEqual({ secret: 's3cret', source: 'env' });
  });

  it('in test mode without a secret creates one in DATA_DIR/keystore.secret (0600) and reuses it', () => {
    const dataDir = tempDir();
    const first = resolveKeystoreSecret({ secret: undefined, mode: 'test', dataDir });
    expect(first.source).toBe('file-created');
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/);
    const file = join(dataDir, 'keystore.secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(first.secret);
    chmodSync(file, 0o644);
    const second = resolveKeystoreSecret({ secret: '', mode: 'test', dataDir });
    expect(second).toEqual({ secret: first.secret, source: 'file', file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('stops a prod boot without a secret, naming the variable', () => {
    expect(() => resolveKeystoreSecret({ secret: undefined, mode: 'prod', dataDir: tempDir() })).toThrow(ConfigError);
    expect(() => resolveKeystoreSecret({ secret: undefined, mode: 'prod', dataDir: tempDir() })).toThrow(/GW_KEYSTORE_SECRET/);
  });
});

import { readFileSync, statSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../kernel/errors.ts';
import { resolveKeystoreSecret } from './secret.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

/** A data dir that does not exist yet, inside a fresh directory */
const dataDirIn = (): string => join(tempDir('kssecret-'), 'data');

describe('resolveKeystoreSecret', () => {
  it('uses GW_KEYSTORE_SECRET when set, in any mode', () => {
    expect(resolveKeystoreSecret({ secret: 's3cret', mode: 'prod', dataDir: dataDirIn() })).toEqual({ secret: 's3cret', source: 'env' });
  });

  it('in test mode without a secret creates one in DATA_DIR/keystore.secret (0600) and reuses it', () => {
    const dataDir = dataDirIn();
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
    expect(() => resolveKeystoreSecret({ secret: undefined, mode: 'prod', dataDir: dataDirIn() })).toThrow(ConfigError);
    expect(() => resolveKeystoreSecret({ secret: undefined, mode: 'prod', dataDir: dataDirIn() })).toThrow(/GW_KEYSTORE_SECRET/);
  });
});

/** Behaviour every ApiKeyStore adapter must show; run by each adapter's test file. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveApiKeySealKey } from './codec.ts';
import type { ApiKeyRecord, ApiKeyStore } from './port.ts';

/** Storage that can be opened again (same data) with a given server key, and read raw. */
export interface ApiKeyStoreFixture {
  open(key: Buffer): Promise<ApiKeyStore>;
  /** everything the adapter keeps at rest, as text (empty for a store that keeps nothing at rest) */
  raw(): Promise<string>;
}

const KEY_A = deriveApiKeySealKey('api keys contract secret');
const KEY_B = deriveApiKeySealKey('another server secret');

let clock = Date.parse('2026-01-01T00:00:00Z');
const hmacKey = (accountId: string, label: string | null = null): ApiKeyRecord => ({
  apiKey: randomBytes(32).toString('hex'),
  accountId,
  type: 'HMAC_SHA256',
  secret: randomBytes(32).toString('hex'),
  label,
  createdAt: new Date((clock += 1000)).toISOString(),
});
const edKey = (accountId: string): ApiKeyRecord => ({
  apiKey: randomBytes(32).toString('hex'),
  accountId,
  type: 'ED25519',
  publicKey: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAexample\n-----END PUBLIC KEY-----\n',
  label: 'bot',
  createdAt: new Date((clock += 1000)).toISOString(),
});

/** Registers the shared ApiKeyStore tests; `fresh()` gives a fixture over empty storage; `persistent` adds the at-rest tests. */
export function describeApiKeyStore(name: string, persistent: boolean, fresh: () => Promise<ApiKeyStoreFixture>): void {
  describe(`ApiKeyStore contract: ${name}`, () => {
    it('keeps keys by name and by account, oldest first, and gives back exactly what was put', async () => {
      const store = await (await fresh()).open(KEY_A);
      const a1 = hmacKey('acct-a', 'first');
      const a2 = edKey('acct-a');
      const b1 = hmacKey('acct-b');
      for (const r of [a1, b1, a2]) await store.put(r);
      expect(await store.get(a1.apiKey)).toEqual(a1);
      expect(await store.get(a2.apiKey)).toEqual(a2);
      expect(await store.get('no-such-key')).toBeUndefined();
      expect(await store.listByAccount('acct-a')).toEqual([a1, a2]);
      expect(await store.listByAccount('acct-b')).toEqual([b1]);
      expect(await store.listByAccount('acct-c')).toEqual([]);
    });

    it('deletes a key only for its own account, and every key of a deleted account', async () => {
      const store = await (await fresh()).open(KEY_A);
      const a1 = hmacKey('acct-a');
      const a2 = hmacKey('acct-a');
      const b1 = hmacKey('acct-b');
      for (const r of [a1, a2, b1]) await store.put(r);
      expect(await store.delete('acct-b', a1.apiKey)).toBe(false);
      expect(await store.get(a1.apiKey)).toEqual(a1);
      expect(await store.delete('acct-a', a1.apiKey)).toBe(true);
      expect(await store.delete('acct-a', a1.apiKey)).toBe(false);
      expect(await store.get(a1.apiKey)).toBeUndefined();
      expect(await store.deleteAccount('acct-a')).toBe(1);
      expect(await store.listByAccount('acct-a')).toEqual([]);
      expect(await store.get(a2.apiKey)).toBeUndefined();
      expect(await store.get(b1.apiKey)).toEqual(b1);
    });

    if (persistent)
      it('keeps keys across reopen, never holds a secret in plain text at rest, and fails loudly under another server key', async () => {
        const fixture = await fresh();
        const store = await fixture.open(KEY_A);
        const a = hmacKey('acct-a');
        await store.put(a);
        await store.close();
        const raw = await fixture.raw();
        expect(raw).toContain(a.apiKey);
        expect(raw).not.toContain(a.secret);
        expect(raw).not.toContain(Buffer.from(a.secret ?? '').toString('base64'));
        expect(await (await fixture.open(KEY_A)).get(a.apiKey)).toEqual(a);
        const other = fixture.open(KEY_B).then((s) => s.get(a.apiKey));
        await expect(other).rejects.toThrow(/cannot be opened with this server key/);
      });
  });
}

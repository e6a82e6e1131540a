/** Behaviour every KeyStore backend must show; run by each backend's test file. */
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { deriveKeystoreKey } from './crypto.ts';
import { KeyStoreSecretMismatch, type KeyStore } from './port.ts';

/** A place that can be opened several times (same data) with different keys, and tampered with. */
export interface KeyStoreFixture {
  open(key: Buffer): Promise<KeyStore>;
  /** Replaces the raw sealed record of `name`. */
  tamper(name: string, mutate: (sealed: string) => string): Promise<void>;
  /** The raw sealed record of `name`. */
  raw(name: string): Promise<string | undefined>;
}

const KEY_A = deriveKeystoreKey('correct horse battery staple');
const KEY_B = deriveKeystoreKey('another secret entirely');

/** Registers the shared KeyStore tests; `fresh()` gives a fixture over empty storage. */
export function describeKeyStore(name: string, fresh: () => Promise<KeyStoreFixture>): void {
  describe(`KeyStore contract: ${name}`, () => {
    it('creates keypairs it can give back, lists and reports them', async () => {
      const store = await (await fresh()).open(KEY_A);
      expect(await store.list()).toEqual([]);
      const a = await store.create();
      const b = await store.create();
      const address = a.publicKey.toBase58();
      expect(await store.has(address)).toBe(true);
      expect((await store.get(address))?.secretKey).toEqual(a.secretKey);
      expect((await store.list()).sort()).toEqual([address, b.publicKey.toBase58()].sort());
      const unknown = Keypair.generate().publicKey.toBase58();
      expect(await store.has(unknown)).toBe(false);
      expect(await store.get(unknown)).toBeUndefined();
      expect(await store.has('__check__')).toBe(false);
      expect(await store.get('__check__')).toBeUndefined();
    });

    it('imports a key idempotently', async () => {
      const store = await (await fresh()).open(KEY_A);
      const pair = Keypair.generate();
      expect((await store.import(pair.secretKey)).publicKey.toBase58()).toBe(pair.publicKey.toBase58());
      expect((await store.import(pair.secretKey)).publicKey.toBase58()).toBe(pair.publicKey.toBase58());
      expect(await store.list()).toEqual([pair.publicKey.toBase58()]);
      expect((await store.get(pair.publicKey.toBase58()))?.secretKey).toEqual(pair.secretKey);
    });

    it('keeps keys across reopen with the same secret, and stores no plaintext key', async () => {
      const fixture = await fresh();
      const pair = await (await fixture.open(KEY_A)).create();
      const address = pair.publicKey.toBase58();
      const reopened = await fixture.open(KEY_A);
      expect((await reopened.get(address))?.secretKey).toEqual(pair.secretKey);
      const raw = (await fixture.raw(address)) ?? '';
      expect(raw).not.toContain(Buffer.from(pair.secretKey).toString('base64url'));
      expect(raw).not.toContain(Buffer.from(pair.secretKey).toString('hex'));
      expect(raw).not.toContain(Buffer.from(pair.secretKey).toString('base64'));
    });

    it('fails loudly on open with a wrong secret', async () => {
      const fixture = await fresh();
      await (await fixture.open(KEY_A)).create();
      await expect(fixture.open(KEY_B)).rejects.toThrow(KeyStoreSecretMismatch);
    });

    it('fails loudly on a tampered record, and on a record copied to another address', async () => {
      const fixture = await fresh();
      const store = await fixture.open(KEY_A);
      const a = (await store.create()).publicKey.toBase58();
      const b = (await store.create()).publicKey.toBase58();
      const sealedA = (await fixture.raw(a)) ?? '';
      await fixture.tamper(b, () => sealedA);
      const reopened = await fixture.open(KEY_A);
      await expect(reopened.get(b)).rejects.toThrow(KeyStoreSecretMismatch);
      await fixture.tamper(a, (s) => {
        const parts = s.split('.');
        const body = Buffer.from(parts[3] ?? '', 'base64url');
        body[0] = (body[0] ?? 0) ^ 1;
        parts[3] = body.toString('base64url');
        return parts.join('.');
      });
      await expect((await fixture.open(KEY_A)).get(a)).rejects.toThrow(KeyStoreSecretMismatch);
    });
  });
}

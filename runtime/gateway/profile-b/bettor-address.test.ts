import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { deriveKeystoreKey } from '../../../adapters/store/keystore/crypto.ts';
import { openFileKeyStore } from '../../../adapters/store/keystore/file.ts';
import { resolveFixedBettor } from './bettor-address.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const log = pino({ level: 'silent' });
const dirs: string[] = [];
const freshDir = () => {
  const d = tempDir('fixed-bettor-');
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('uses GW_FIXED_BETTOR as given, whether or not the key store holds it', async () => {
  const dir = freshDir();
  const keys = await openFileKeyStore(dir, deriveKeystoreKey('s'));
  const outsider = Keypair.generate().publicKey.toBase58();
  expect((await resolveFixedBettor(outsider, dir, keys, log)).toBase58()).toBe(outsider);
  expect(await keys.list()).toEqual([]);
});

it('creates a custodial bettor once when unset, and remembers it across boots', async () => {
  const dir = freshDir();
  const key = deriveKeystoreKey('s');
  const first = await resolveFixedBettor(undefined, dir, await openFileKeyStore(dir, key), log);
  const reopened = await openFileKeyStore(dir, key);
  expect(await reopened.has(first.toBase58())).toBe(true);
  const second = await resolveFixedBettor(undefined, dir, reopened, log);
  expect(second.toBase58()).toBe(first.toBase58());
  expect(await reopened.list()).toEqual([first.toBase58()]);
  expect(JSON.parse(readFileSync(join(dir, 'fixed-bettor.json'), 'utf8'))).toEqual({ address: first.toBase58() });
});

/**
 * What the attack tests share: the stake, price and funds they use, a chain with mint and vault,
 * and a funded key that has no role.
 */
import { Keypair, PublicKey } from '@solana/web3.js';
import { writeAccount } from '../forge.ts';
import { buildProgramWithout } from '../../build/build.ts';
import { describe, expect, it } from 'vitest';
import { expectRefused } from '../refusal.ts';
import { BetChain, type Sent } from '../svm.ts';

export const STAKE = 1_000_000_000n;
export const PRICE = 15_000_000_000n;
export const FUNDS = 100_000_000_000n;

export function newChain(): BetChain {
  const fresh = new BetChain();
  fresh.createMintAndVault();
  return fresh;
}

/** A funded key that has no role. */
export function stranger(on: BetChain): Keypair {
  const key = Keypair.generate();
  on.airdrop(key.publicKey, 10_000_000_000n);
  return key;
}

/** The accounts at `keys` as they are now (owner, lamports, data), to hold an attack's before and after side by side. */
export function holdingsOf(chain: BetChain, keys: readonly PublicKey[]): string {
  return JSON.stringify(
    keys.map((k) => {
      const a = chain.readAccount(k);
      return a && { owner: a.owner, lamports: a.lamports.toString(), data: Buffer.from(a.data).toString('hex') };
    }),
  );
}

const variants = new Map<number, Uint8Array>();
/** The program built with the checks in `bits` (SKIP_* of program/src/prices.h) left out; built once per `bits`. */
export function programWithout(bits: number): Uint8Array {
  let bytes = variants.get(bits);
  if (!bytes) variants.set(bits, (bytes = buildProgramWithout(bits)));
  return bytes;
}

/**
 * A look-alike of the instructions sysvar (an account the attacker owns data of) saying instruction
 * 0 was an Ed25519 instruction with `ed25519Data` and instruction 1 is running: what a program that
 * does not check the sysvar's key would believe (Wormhole, 2022).
 */
export function lookAlikeSysvar(chain: BetChain, ed25519Data: Buffer): PublicKey {
  const ed25519 = new PublicKey('Ed25519SigVerify111111111111111111111111111').toBytes();
  const first = Buffer.concat([Buffer.from([0, 0]), ed25519, Buffer.from([ed25519Data.length & 0xff, ed25519Data.length >> 8]), ed25519Data]);
  const header = 2 + 2 * 2;
  const second = Buffer.from([0, 0, ...new Uint8Array(32), 0, 0]);
  const sysvar = Buffer.alloc(header + first.length + second.length + 2);
  sysvar.writeUInt16LE(2, 0);
  sysvar.writeUInt16LE(header, 2);
  sysvar.writeUInt16LE(header + first.length, 4);
  first.copy(sysvar, header);
  second.copy(sysvar, header + first.length);
  sysvar.writeUInt16LE(1, sysvar.length - 2);
  const key = Keypair.generate().publicKey;
  writeAccount(chain, key, { owner: new PublicKey('Sysvar1111111111111111111111111111111111111'), data: sysvar, lamports: 10_000_000n });
  return key;
}

/** One attack on a scene: what it does, the error that stops it, and the check (a bit for `programWithout`) that raises it. */
export interface Attack<S> {
  name: string;
  error: string;
  without: number;
  /** what happens before the attack (a bet placed, a signer trusted) */
  prepare?(s: S): Promise<void>;
  run(s: S): Promise<Sent>;
}

/** How a family of attacks is checked on its scenes. */
export interface AttackChecks<S extends { chain: BetChain }> {
  /** a fresh scene on the program, or on a program without some checks */
  scene(programBytes?: Uint8Array): Promise<S>;
  /** the accounts the attack must leave as they were (holdingsOf) */
  holdings(s: S): string;
  /** read before a refused attack; the check, run after it, that it did nothing (no bet opened or closed) */
  refused(s: S): () => void;
  /** read before the same attack on the weakened program; the check, run after it, that it did what it wanted */
  passed(s: S): () => void;
}

/**
 * One test per attack: on the program it is refused with its error and every account is unchanged;
 * on the program without its check, the same attack lands and does what it wanted, so the check is
 * what stops it.
 */
export function describeAttacks<S extends { chain: BetChain }>(title: string, attacks: readonly Attack<S>[], checks: AttackChecks<S>): void {
  describe(title, () => {
    for (const attack of attacks) {
      it(`refuses ${attack.name} (${attack.error}), every account unchanged; without its check it would pass`, async () => {
        const s = await checks.scene();
        await attack.prepare?.(s);
        const before = checks.holdings(s);
        const nothingHappened = checks.refused(s);
        expectRefused(await attack.run(s), attack.error);
        expect(checks.holdings(s)).toBe(before);
        nothingHappened();

        const weak = await checks.scene(programWithout(attack.without));
        await attack.prepare?.(weak);
        const itWorked = checks.passed(weak);
        const sent = await attack.run(weak);
        expect(sent.ok, sent.ok ? '' : sent.logs.join('\n')).toBe(true);
        itWorked();
      });
    }
  });
}

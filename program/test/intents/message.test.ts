/**
 * The intent text as the program builds it (program/src/intents.c, docs/decisions.md#bet-intents)
 * is byte for byte what `intentMessage` in adapters/chain/codec/intent.ts builds, for edge cases the
 * placement tests cannot reach (keys with leading zero bytes, the all-zero and all-ones keys, the
 * largest and negative numbers); and what its base58 encoder costs, in compute units per key. A
 * small program linked with the contract's own intents.c runs in LiteSVM and logs what it builds.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { address } from '@solana/kit';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSharedObject } from '../../build/build.ts';
import { intentMessage, type IntentFields } from '../../../adapters/chain/codec/intent.ts';
import { BetChain } from '../svm.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const work = tempDir('intent-text-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Instruction data 0 + 32-byte keys: logs each key's base58 text. 1 + program, config, bettor, side
 * u8, amount u64, bet number u64, valid-until i64: logs the intent text (sol_log_data, exact bytes).
 * 2 and 3: the same without logging (what the encoding alone costs).
 */
const DRIVER = `
#include "intents.h"
u64 entrypoint(const u8 *serialized) {
  Input in;
  parse_input(serialized, &in);
  if (in.data_len == 0) return 1;
  u8 out[INTENT_MAX_LEN];
  u8 mode = in.data[0];
  if (mode == 0 || mode == 2) {
    for (u64 at = 1; at + 32 <= in.data_len; at += 32) {
      u64 len = base58_key((const SolPubkey *)(in.data + at), out);
      if (mode == 0) sol_log_((const char *)out, len);
    }
    return 0;
  }
  if (in.data_len != 1 + 96 + 1 + 24) return 2;
  const u8 *d = in.data + 1;
  const IntentTerms terms = {(const SolPubkey *)d, (const SolPubkey *)(d + 32), (const SolPubkey *)(d + 64), d[96],
                             read_u64(d + 97), read_u64(d + 105), (i64)read_u64(d + 113)};
  const SolBytes text = {out, intent_message(&terms, out)};
  if (mode == 1) sol_log_data(&text, 1);
  return 0;
}
`;

const driverPath = join(work, 'driver.c');
writeFileSync(driverPath, DRIVER);
const elf = buildSharedObject([driverPath, ...['intents.c', 'prices.c', 'errors.c', 'accounts.c'].map((f) => join(src, f))], [`-I${src}`]);
const chain = new BetChain({ deploy: false });
const programId = Keypair.generate().publicKey;
chain.svm.addProgram(address(programId.toBase58()), elf);
const payer = Keypair.generate();
chain.airdrop(payer.publicKey, 1_000_000_000n);

function run(data: Buffer): { logs: string[]; cu: number } {
  const sent = chain.mustSend([new TransactionInstruction({ programId, keys: [], data })], [payer]);
  return { logs: sent.logs, cu: sent.cu };
}

/** What the program logs for `keys`, one base58 text each. */
function encoded(keys: PublicKey[]): string[] {
  const prefix = 'Program log: ';
  return run(Buffer.concat([Buffer.from([0]), ...keys.map((k) => k.toBuffer())]))
    .logs.filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}

/** Instruction data asking the program for the intent text of `f` (`mode` 1: logged, 3: only built). */
function textData(f: IntentFields, mode: 1 | 3): Buffer {
  const data = Buffer.alloc(1 + 96 + 1 + 24);
  data[0] = mode;
  [f.program, f.config, f.bettor].forEach((k, i) => k.toBuffer().copy(data, 1 + 32 * i));
  data[97] = f.side === 'UP' ? 0 : 1;
  data.writeBigUInt64LE(f.amount, 98);
  data.writeBigUInt64LE(f.betNumber, 106);
  data.writeBigInt64LE(f.validUntil, 114);
  return data;
}

/** The intent text the program builds for `f`. */
function programText(f: IntentFields): Buffer {
  const line = run(textData(f, 1)).logs.find((l) => l.startsWith('Program data: '));
  return Buffer.from(line!.slice('Program data: '.length), 'base64');
}

const keyOf = (bytes: number[] | Uint8Array): PublicKey => new PublicKey(Uint8Array.from(bytes));
const EDGE_KEYS = [
  keyOf(new Array<number>(32).fill(0)),
  keyOf([...new Array<number>(31).fill(0), 1]),
  keyOf([...new Array<number>(31).fill(0), 57]),
  keyOf([...new Array<number>(31).fill(0), 58]),
  keyOf(new Array<number>(32).fill(0xff)),
  keyOf([0, 0, 0, ...Keypair.generate().publicKey.toBytes().subarray(3)]),
  keyOf([0, 1, ...new Array<number>(30).fill(0)]),
  keyOf([1, ...new Array<number>(31).fill(0)]),
  new PublicKey('11111111111111111111111111111111'),
  new PublicKey('Ed25519SigVerify111111111111111111111111111'),
  new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
];

describe('the intent text the program builds', () => {
  it('base58: every key encodes as web3.js encodes it (edge cases and 200 random keys)', () => {
    const keys = [...EDGE_KEYS, ...Array.from({ length: 200 }, () => Keypair.generate().publicKey)];
    for (let i = 0; i < keys.length; i += 20) {
      const batch = keys.slice(i, i + 20);
      expect(encoded(batch)).toEqual(batch.map((k) => k.toBase58()));
    }
  });

  it('is byte for byte intentMessage(), for both sides and the smallest, largest and negative numbers', () => {
    const [program, config, bettor] = [Keypair.generate().publicKey, EDGE_KEYS[5]!, Keypair.generate().publicKey];
    const cases: Array<Pick<IntentFields, 'side' | 'amount' | 'betNumber' | 'validUntil'>> = [
      { side: 'UP', amount: 100_000_000n, betNumber: 0n, validUntil: 1_795_000_000n },
      { side: 'DOWN', amount: 2n ** 64n - 1n, betNumber: 2n ** 64n - 1n, validUntil: 2n ** 63n - 1n },
      { side: 'UP', amount: 0n, betNumber: 10n, validUntil: 0n },
      { side: 'DOWN', amount: 9n, betNumber: 7n, validUntil: -1n },
      { side: 'UP', amount: 1n, betNumber: 1n, validUntil: -(2n ** 63n) },
    ];
    for (const c of cases) {
      const f: IntentFields = { program, config, bettor, ...c };
      expect(
        programText(f).toString('utf8'),
        JSON.stringify(c, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      ).toBe(Buffer.from(intentMessage(f)).toString('utf8'));
      expect(programText(f).equals(Buffer.from(intentMessage(f)))).toBe(true);
    }
  });

  it('measures: compute units of one base58 key and of a whole intent text', () => {
    const keys = Array.from({ length: 9 }, () => Keypair.generate().publicKey);
    const quiet = (k: PublicKey[]): number => run(Buffer.concat([Buffer.from([2]), ...k.map((key) => key.toBuffer())])).cu;
    const none = quiet([]);
    const perKey = (quiet(keys) - quiet(keys.slice(0, 1))) / 8;
    const f: IntentFields = {
      program: keys[0]!,
      config: keys[1]!,
      bettor: keys[2]!,
      side: 'UP',
      amount: 100_000_000n,
      betNumber: 3n,
      validUntil: 1_795_000_000n,
    };
    const text = run(textData(f, 3)).cu - none;
    console.log(`intent text measured: ${JSON.stringify({ base58PerKey: perKey, wholeText: text, bytes: intentMessage(f).length })}`);
    // one digit at a time a key would cost several thousand units
    expect(perKey).toBeLessThan(1_000);
    expect(text).toBeLessThan(3_500);
  });
});

/**
 * The price source's signing key and sequence (docs/decisions.md#signed-prices): each tick gets the
 * next sequence number of this signer and an Ed25519 signature over its tick message. The key is
 * the price source's own (never the relayer's or the admin's): `price-signer.json` in DATA_DIR,
 * created on first start, or given by env. The next sequence number is written to
 * `price-signer.<key>.seq` before a tick goes out, so it continues across restarts without a gap
 * and is never used twice.
 *
 * @example
 *   const signer = loadPriceSigner({ dataDir: '.data' });
 *   feed.onTick((tick) => publishPrice(nc, signer.sign(tick)));
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { Keypair } from '@solana/web3.js';
import type { KeyObject } from 'node:crypto';
import type { PriceTick } from './port.ts';
import { encodeTickMessage, priceE8Of, privateKeyOfSeed, signMessage } from './tick-message.ts';

/** Where the sequence number lives: read once, written before each tick. */
export interface SeqStore {
  /** the next sequence number to use */
  load(): bigint;
  /** records that `next` is the next one to use */
  save(next: bigint): void;
}

/** Signs ticks with one key and its sequence. */
export class PriceSigner {
  private readonly key: KeyObject;
  private next: bigint;
  /** the signer's public key, base58 */
  readonly publicKey: string;

  constructor(
    readonly keypair: Keypair,
    private readonly seqs: SeqStore,
  ) {
    this.key = privateKeyOfSeed(keypair.secretKey.subarray(0, 32));
    this.publicKey = keypair.publicKey.toBase58();
    this.next = seqs.load();
  }

  /** The sequence number the next tick gets. */
  get nextSeq(): bigint {
    return this.next;
  }

  /** `tick` with its price at 8 fraction digits, signed with the next sequence number. */
  sign(tick: PriceTick): PriceTick {
    const price = new Decimal(tick.price).toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toFixed(8);
    const priceE8 = priceE8Of(price);
    if (priceE8 === undefined) throw new Error(`cannot sign price ${tick.price}`);
    const seq = this.next;
    // persisted before the signature leaves: a restart never signs a second tick with this number
    this.seqs.save(seq + 1n);
    this.next = seq + 1n;
    const signature = signMessage(this.key, encodeTickMessage({ seq, ts: tick.ts, priceE8 }));
    return { symbol: 'solusdt', price, ts: tick.ts, signed: { seq: Number(seq), signature: signature.toString('base64'), signer: this.publicKey } };
  }
}

/** A signer's first sequence number: 1, so that the contract's 0 (`last_entry_seq`) means no tick of it was used yet. */
export const FIRST_SEQ = 1n;

/** A sequence kept in memory only (tests). */
export function memorySeqStore(start = FIRST_SEQ): SeqStore {
  let next = start;
  return { load: () => next, save: (n) => void (next = n) };
}

/** A sequence kept in a file (the number as text; written aside, then renamed). */
export function fileSeqStore(path: string): SeqStore {
  return {
    load: () => (existsSync(path) ? BigInt(readFileSync(path, 'utf8').trim()) : FIRST_SEQ),
    save(next) {
      writeFileSync(`${path}.tmp`, next.toString());
      renameSync(`${path}.tmp`, path);
    },
  };
}

/** Path of the price signer's key in a data dir. */
export const priceSignerKeyPath = (dataDir: string): string => join(dataDir, 'price-signer.json');

/** The price signer's key of a data dir, or null when there is none yet. */
export function readPriceSignerKey(dataDir: string): Keypair | null {
  const path = priceSignerKeyPath(dataDir);
  if (!existsSync(path)) return null;
  return Keypair.fromSecretKey(Uint8Array.from(JSON.parse(readFileSync(path, 'utf8')) as number[]));
}

/** The key from `secret` (a Solana keypair file's JSON array of 64 bytes), else DATA_DIR's, else a new one saved there (mode 0600). */
export function loadOrCreatePriceSignerKey(dataDir: string, secret?: string): Keypair {
  if (secret) return Keypair.fromSecretKey(Uint8Array.from(JSON.parse(secret) as number[]));
  const existing = readPriceSignerKey(dataDir);
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true });
  const fresh = Keypair.generate();
  const path = priceSignerKeyPath(dataDir);
  writeFileSync(`${path}.tmp`, JSON.stringify(Array.from(fresh.secretKey)), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
  return fresh;
}

/** The price signer of a data dir: its key (or `secret`'s) and that key's sequence file beside it. */
export function loadPriceSigner(options: { dataDir: string; secret?: string }): PriceSigner {
  const keypair = loadOrCreatePriceSignerKey(options.dataDir, options.secret);
  mkdirSync(options.dataDir, { recursive: true });
  return new PriceSigner(keypair, fileSeqStore(join(options.dataDir, `price-signer.${keypair.publicKey.toBase58()}.seq`)));
}

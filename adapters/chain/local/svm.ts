/**
 * LiteSVM through its native binding, on raw bytes: account keys as 32-byte arrays, transactions
 * as their wire bytes. The package's own wrapper converts every key to and from base58 and
 * decodes and re-encodes every transaction (@solana/kit codecs), which was most of the local
 * chain's CPU per transaction; here base58 happens only at the edges, with a cache for the keys
 * the chain keeps meeting.
 *
 * @example
 *   const svm = new RawSvm();
 *   const result = svm.send(wireBytes);           // TransactionMetadata | FailedTransactionMetadata
 *   const acc = svm.account(keyBytes);            // { lamports, owner (base58), executable, data } | null
 */
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { Account, LiteSvm, type Clock, type FailedTransactionMetadata, type TransactionMetadata } from 'litesvm/dist/internal.js';
import { ResetMap } from '../../../kernel/reset-map.ts';

const b58decoder = getBase58Decoder();
const b58encoder = getBase58Encoder();

/** base58 of 32-byte keys, cached (the same few thousand keys come back all the time). */
const CACHE_LIMIT = 100_000;
const names = new ResetMap<string, string>(CACHE_LIMIT);
const bytesOf = new ResetMap<string, Uint8Array>(CACHE_LIMIT);

/** The base58 text of a key (or any bytes). */
export function base58(bytes: Uint8Array): string {
  if (bytes.length !== 32) return b58decoder.decode(bytes);
  const k = Buffer.from(bytes.buffer, bytes.byteOffset, 32).toString('latin1');
  let name = names.get(k);
  if (name === undefined) names.set(k, (name = b58decoder.decode(bytes)));
  return name;
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGITS[ALPHABET.charCodeAt(i)] = i;

/**
 * The 32 bytes a base58 key names, by plain byte arithmetic (the codec's BigInt path costs about
 * ten times more, and a chain past the cache's size meets every key afresh: a restart, a
 * compaction); null when the text is not exactly 32 bytes of base58.
 */
function decodeKey(text: string): Uint8Array | null {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++; // each leading '1' is a zero byte
  const acc = new Uint8Array(32); // little-endian
  let used = 0;
  for (let i = zeros; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let carry = c < 128 ? (DIGITS[c] as number) : -1;
    if (carry < 0) return null;
    for (let j = 0; j < used; j++) {
      carry += (acc[j] as number) * 58;
      acc[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      if (used === 32) return null;
      acc[used++] = carry & 0xff;
      carry >>= 8;
    }
  }
  if (zeros + used !== 32) return null;
  return acc.reverse(); // the leading zero bytes are the untouched top of acc
}

/** The 32 bytes of a base58 key. */
export function keyBytes(address: string): Uint8Array {
  let bytes = bytesOf.get(address);
  if (bytes === undefined) bytesOf.set(address, (bytes = decodeKey(address) ?? new Uint8Array(b58encoder.encode(address))));
  return bytes;
}

/** An account as the node keeps it: owner in base58, data as bytes. */
export interface RawAccount {
  lamports: bigint;
  owner: string;
  executable: boolean;
  data: Uint8Array;
}

/** The native LiteSVM with a raw-bytes surface. */
export class RawSvm {
  private constructor(private readonly inner: LiteSvm) {}

  /** A fresh chain with LiteSVM's defaults (builtins, sysvars, SPL programs). */
  static create(): RawSvm {
    return new RawSvm(new LiteSvm());
  }

  /** A chain restored from LiteSVM's own serialised state (the legacy `snapshot.bin`). */
  static fromBytes(bytes: Uint8Array): RawSvm {
    return new RawSvm(LiteSvm.fromBytes(bytes));
  }

  configure(o: { blockhashCheck: boolean; transactionHistory: bigint; sigverify: boolean }): void {
    this.inner.setBlockhashCheck(o.blockhashCheck);
    this.inner.setTransactionHistory(o.transactionHistory);
    this.inner.setSigverify(o.sigverify);
  }

  setSigverify(on: boolean): void {
    this.inner.setSigverify(on);
  }

  setClock(clock: Clock): void {
    this.inner.setClock(clock);
  }

  /** The account at `key`, or null when there is none (or it holds no lamports). */
  account(key: Uint8Array): RawAccount | null {
    const acc = this.inner.getAccount(key);
    if (acc === null) return null;
    const lamports = acc.lamports();
    if (lamports === 0n) return null;
    return { lamports, owner: base58(acc.owner()), executable: acc.executable(), data: acc.data() };
  }

  /** Every account `owner` owns, with its address. */
  programAccounts(owner: Uint8Array): Array<RawAccount & { address: string }> {
    return this.inner.getProgramAccounts(owner).map((a) => {
      const acc = a.account();
      return { address: base58(a.address), lamports: acc.lamports(), owner: base58(acc.owner()), executable: acc.executable(), data: acc.data() };
    });
  }

  /** Writes an account as it is (restoring state: journal replay, preflight roll-back). */
  setAccount(key: Uint8Array, a: RawAccount): void {
    this.inner.setAccount(key, new Account(a.lamports, a.data, keyBytes(a.owner), a.executable, 0n));
  }

  minimumBalance(size: bigint): bigint {
    return this.inner.minimumBalanceForRentExemption(size);
  }

  airdrop(key: Uint8Array, lamports: bigint): TransactionMetadata | FailedTransactionMetadata | null {
    return this.inner.airdrop(key, lamports);
  }

  /** Executes a legacy or v0 transaction from its wire bytes and commits it. */
  send(wire: Uint8Array, version: 'legacy' | 0): TransactionMetadata | FailedTransactionMetadata {
    return version === 'legacy' ? this.inner.sendLegacyTransaction(wire) : this.inner.sendVersionedTransaction(wire);
  }

  /** Executes without committing. */
  simulate(wire: Uint8Array, version: 'legacy' | 0) {
    return version === 'legacy' ? this.inner.simulateLegacyTransaction(wire) : this.inner.simulateVersionedTransaction(wire);
  }
}

/**
 * Transactions compiled and signed without web3.js's per-key base58 work: the legacy message is
 * laid out here from the instructions' raw keys (fee payer first, then signers that write,
 * signers that only read, writable accounts, read-only accounts and programs — the order the
 * runtime requires), signed with Node's own Ed25519 (about thirty times cheaper than web3.js's
 * JavaScript signer), and the wire form is assembled directly.
 *
 * @example
 *   const { wire, signature } = signTransaction(instructions, payer, [bettor], blockhash);
 *   await rpc.call('sendTransaction', [wire.toString('base64'), { encoding: 'base64' }], v.string());
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { Keypair, TransactionInstruction } from '@solana/web3.js';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { LRUCache } from 'lru-cache';

const base58 = getBase58Decoder();
const fromBase58 = getBase58Encoder();
/**
 * Node key objects by public key (base64url), the most recently used first out: custodial keypairs
 * are loaded afresh per request, their keys are not. The keys that sign again and again (the
 * relayer, the fee payer, an intent re-signed over a new blockhash) stay; a bettor's key signs once
 * per bet, and thousands of them waiting for their expiry would each hold a key object (about 300
 * bytes of heap besides OpenSSL's) for nothing (docs/operations.md#memory).
 */
/**
 * the key objects of the keys that signed lately, the least recently used dropped first: room for
 * every bettor of a busy round (a bettor's key signs once per bet, a round apart), so a herd of
 * bettors does not make each key object again (0.05 ms per bet at 2,000 bettors with room for 512)
 */
const keyObjects = new LRUCache<string, KeyObject>({ max: 8_192 });

/**
 * The Node key object of a web3.js keypair (made once per key). It is imported as a JWK with its
 * public half given, which spares OpenSSL deriving it from the seed (a tenth of the cost of PKCS#8).
 */
function keyObjectOf(kp: Keypair): KeyObject {
  const secret = Buffer.from(kp.secretKey.buffer, kp.secretKey.byteOffset, 64);
  const x = secret.subarray(32).toString('base64url');
  let key = keyObjects.get(x);
  if (key === undefined) {
    key = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: secret.subarray(0, 32).toString('base64url'), x }, format: 'jwk' });
    keyObjects.set(x, key);
  }
  return key;
}

/** Ed25519 signature of `message` by `kp`. */
export function signBytes(kp: Keypair, message: Uint8Array): Buffer {
  return sign(null, message, keyObjectOf(kp));
}

/** A signed transaction: its wire bytes and its signature (the fee payer's, base58). */
export interface SignedTransaction {
  wire: Buffer;
  signature: string;
}

/** Solana's compact-u16 length prefix. */
function shortVec(n: number): Buffer {
  const out: number[] = [];
  let rest = n;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(byte);
      return Buffer.from(out);
    }
    out.push(byte | 0x80);
  }
}

interface Meta {
  key: Buffer;
  signer: boolean;
  writable: boolean;
}

/** Privilege rank of an account in the message: signers that write, signers, writable, read-only. */
const rank = (m: Meta) => (m.signer ? 0 : 2) + (m.writable ? 0 : 1);

/** The accounts of the message, merged (strongest privilege wins) and in the runtime's order, fee payer first. */
function accountsOf(instructions: TransactionInstruction[], payer: Buffer): Meta[] {
  const byKey = new Map<string, Meta>();
  const add = (key: Buffer, signer: boolean, writable: boolean) => {
    const id = key.toString('latin1');
    const held = byKey.get(id);
    if (held) {
      held.signer ||= signer;
      held.writable ||= writable;
    } else byKey.set(id, { key, signer, writable });
  };
  add(payer, true, true);
  for (const ix of instructions) {
    for (const k of ix.keys) add(k.pubkey.toBuffer(), k.isSigner, k.isWritable);
    add(ix.programId.toBuffer(), false, false);
  }
  const [first, ...rest] = [...byKey.values()];
  return [first as Meta, ...rest.sort((a, b) => rank(a) - rank(b))]; // a stable sort keeps first-seen order within a rank
}

/** The serialized legacy message and the keys that must sign it, in order. */
function compileMessage(instructions: TransactionInstruction[], payer: Buffer, blockhash: Uint8Array): { message: Buffer; signers: Buffer[] } {
  const accounts = accountsOf(instructions, payer);
  const index = new Map(accounts.map((a, i) => [a.key.toString('latin1'), i]));
  const indexOf = (key: Buffer) => index.get(key.toString('latin1')) as number;
  const signers = accounts.filter((a) => a.signer);
  const header = Buffer.from([signers.length, signers.filter((a) => !a.writable).length, accounts.filter((a) => !a.signer && !a.writable).length]);
  const parts: Buffer[] = [header, shortVec(accounts.length), ...accounts.map((a) => a.key), Buffer.from(blockhash), shortVec(instructions.length)];
  for (const ix of instructions) {
    parts.push(
      Buffer.from([indexOf(ix.programId.toBuffer())]),
      shortVec(ix.keys.length),
      Buffer.from(ix.keys.map((k) => indexOf(k.pubkey.toBuffer()))),
      shortVec(ix.data.length),
      ix.data,
    );
  }
  return { message: Buffer.concat(parts), signers: signers.map((a) => a.key) };
}

/** The 32 bytes of a base58 blockhash (the latest one is kept: every transaction of the moment uses it). */
let lastBlockhash: { text: string; bytes: Uint8Array } | null = null;
function blockhashBytes(text: string): Uint8Array {
  if (lastBlockhash?.text !== text) lastBlockhash = { text, bytes: new Uint8Array(fromBase58.encode(text)) };
  return lastBlockhash.bytes;
}

/** Compiles `instructions` (fee paid by `payer`) over `blockhash` and signs it with every key it needs. */
export function signTransaction(instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[], blockhash: string): SignedTransaction {
  const keyOf = (kp: Keypair) => Buffer.from(kp.secretKey.buffer, kp.secretKey.byteOffset + 32, 32);
  const { message, signers: needed } = compileMessage(instructions, keyOf(payer), blockhashBytes(blockhash));
  const byKey = new Map([payer, ...signers].map((kp) => [keyOf(kp).toString('latin1'), kp]));
  const signatures = needed.map((key) => {
    const kp = byKey.get(key.toString('latin1'));
    if (!kp) throw new Error(`transaction needs a signature of ${base58.decode(key)}, which was not given`);
    return signBytes(kp, message);
  });
  return { wire: Buffer.concat([shortVec(signatures.length), ...signatures, message]), signature: base58.decode(signatures[0] as Buffer) };
}

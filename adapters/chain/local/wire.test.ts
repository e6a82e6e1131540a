import { Keypair, MessageV0, PublicKey, SystemProgram, Transaction, VersionedTransaction } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { readWire } from './wire.ts';

const b58 = getBase58Decoder();
const blockhash = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';

describe('readWire', () => {
  it('reads signature, blockhash and writable keys of a legacy transaction as web3.js lays them out', () => {
    const payer = Keypair.generate();
    const signer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: signer.publicKey, toPubkey: to, lamports: 1 }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: new PublicKey('SysvarC1ock11111111111111111111111111111111'), lamports: 0 }),
    );
    tx.sign(payer, signer);
    const facts = readWire(tx.serialize());
    expect(facts.version).toBe('legacy');
    expect(b58.decode(facts.signature)).toBe(b58.decode(tx.signature!));
    expect(b58.decode(facts.blockhash)).toBe(blockhash);
    const message = tx.compileMessage();
    const expected = message.accountKeys.filter((_, i) => message.isAccountWritable(i)).map((k) => k.toBase58());
    expect(facts.writable.map((k) => b58.decode(k))).toEqual(expected);
    expect(expected[0]).toBe(payer.publicKey.toBase58());
  });

  it('reads a v0 transaction without lookups, refuses one with lookups and bytes that are not a transaction', () => {
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    const msg = MessageV0.compile({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1 })],
    });
    const tx = new VersionedTransaction(msg);
    tx.sign([payer]);
    const facts = readWire(tx.serialize());
    expect(facts.version).toBe(0);
    expect(facts.writable.map((k) => b58.decode(k))).toEqual([payer.publicKey.toBase58(), to.toBase58()]);
    const withLookup = new VersionedTransaction(
      new MessageV0({ ...msg, addressTableLookups: [{ accountKey: Keypair.generate().publicKey, writableIndexes: [0], readonlyIndexes: [] }] }),
    );
    expect(() => readWire(withLookup.serialize())).toThrow(/lookup tables/);
    expect(() => readWire(new Uint8Array([1, 2, 3]))).toThrow(/failed to deserialize/);
    expect(() => readWire(new Uint8Array())).toThrow(/failed to deserialize/);
  });
});

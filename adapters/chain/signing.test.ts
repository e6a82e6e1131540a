import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { signTransaction } from './signing.ts';

const blockhash = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';
const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** What a transaction says, independent of the order of its account list. */
const meaning = (tx: Transaction) =>
  tx.instructions.map((ix) => ({
    program: ix.programId.toBase58(),
    keys: ix.keys.map((k) => ({ key: k.pubkey.toBase58(), signer: k.isSigner, writable: k.isWritable })),
    data: Buffer.from(ix.data).toString('hex'),
  }));

describe('signTransaction', () => {
  it('signs a message web3.js reads back as the same instructions, with valid signatures of every signer', () => {
    const payer = Keypair.generate();
    const other = Keypair.generate();
    const ixs = [
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 5 }),
      new TransactionInstruction({ programId: MEMO, keys: [{ pubkey: other.publicKey, isSigner: true, isWritable: false }], data: Buffer.from('x') }),
    ];
    const ours = signTransaction(ixs, payer, [other], blockhash);
    const decoded = Transaction.from(ours.wire);
    expect(decoded.verifySignatures()).toBe(true);
    expect(decoded.feePayer?.toBase58()).toBe(payer.publicKey.toBase58());
    expect(decoded.recentBlockhash).toBe(blockhash);
    expect(getBase58Decoder().decode(decoded.signature!)).toBe(ours.signature);
    const theirs = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...ixs);
    expect(meaning(decoded)).toEqual(meaning(Transaction.from(theirs.serialize({ requireAllSignatures: false, verifySignatures: false }))));
    expect(ours.wire.length).toBe(theirs.serialize({ requireAllSignatures: false, verifySignatures: false }).length);
  });

  it('merges an account named twice into its strongest privilege and lays accounts out in the runtime order', () => {
    const payer = Keypair.generate();
    const reader = Keypair.generate();
    const shared = Keypair.generate().publicKey;
    const ixs = [
      new TransactionInstruction({
        programId: MEMO,
        keys: [
          { pubkey: shared, isSigner: false, isWritable: false },
          { pubkey: reader.publicKey, isSigner: true, isWritable: false },
        ],
        data: Buffer.from('a'),
      }),
      new TransactionInstruction({
        programId: MEMO,
        keys: [
          { pubkey: shared, isSigner: false, isWritable: true },
          { pubkey: payer.publicKey, isSigner: false, isWritable: false },
        ],
        data: Buffer.from('b'),
      }),
    ];
    const decoded = Transaction.from(signTransaction(ixs, payer, [reader], blockhash).wire);
    expect(decoded.verifySignatures()).toBe(true);
    const message = decoded.compileMessage();
    expect(message.header).toEqual({ numRequiredSignatures: 2, numReadonlySignedAccounts: 1, numReadonlyUnsignedAccounts: 1 });
    expect(message.accountKeys.map((k) => k.toBase58())).toEqual([payer.publicKey, reader.publicKey, shared, MEMO].map((k) => k.toBase58()));
    expect(meaning(decoded)[1]?.keys[0]).toEqual({ key: shared.toBase58(), signer: false, writable: true });
  });

  it('refuses to build a transaction when a needed signer is missing', () => {
    const payer = Keypair.generate();
    const other = Keypair.generate();
    const ix = new TransactionInstruction({
      programId: SystemProgram.programId,
      keys: [{ pubkey: other.publicKey, isSigner: true, isWritable: true }],
      data: Buffer.alloc(0),
    });
    expect(() => signTransaction([ix], payer, [], blockhash)).toThrow(/needs a signature of/);
  });
});

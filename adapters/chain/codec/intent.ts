/**
 * A bet intent (docs/decisions.md#bet-intents): the text a player's wallet signs to allow exactly
 * one delegated bet, and the Ed25519 program instruction that lets the contract check it. The
 * text is what a wallet's `signMessage` shows the player, one field per line in a fixed order, and
 * `program/src/intents.c` builds the same bytes from the instruction and the accounts and compares
 * them byte for byte:
 *
 *   updown bet intent v1
 *   program: <program id>
 *   config: <config address>
 *   bettor: <bettor address>
 *   side: UP
 *   amount: 100000000 units
 *   bet number: 7
 *   valid until: 1795000000
 *
 * Addresses in base58, numbers in decimal without leading zeros, lines joined by "\n" with none
 * after the last. "bet number" is the bettor's next bet sequence number (its bettor state's bet
 * count, 0 before its first bet), so an intent is good for one bet; "valid until" is unix seconds.
 *
 * @example
 *   const message = intentMessage({ program, config, bettor, side: 'UP', amount: 100_000_000n, betNumber: 0n, validUntil: 1_795_000_000n });
 *   const signature = await wallet.signMessage(message);
 *   const ix = ed25519IntentIx({ bettor, signature, message }); // before the placement, in the same transaction
 *
 * (Addresses are written through `nameOf`, which keeps the text of a key object it saw: the
 * program's and the config's are the same objects for every bet.)
 */
import { TransactionInstruction, type PublicKey } from '@solana/web3.js';
import type { Side } from '../../../kernel/domain.ts';
import { nameOf } from '../account-layout.ts';
import { ED25519_PROGRAM_ID } from './ed25519.ts';

/** The first line: names the message's kind and version. */
export const INTENT_TAG = 'updown bet intent v1';

/** What an intent allows. */
export interface IntentFields {
  program: PublicKey;
  config: PublicKey;
  bettor: PublicKey;
  side: Side;
  /** stake in token base units */
  amount: bigint;
  /** the bettor's next bet sequence number */
  betNumber: bigint;
  /** unix seconds; the intent is refused after it */
  validUntil: bigint;
}

/** The intent's text, as UTF-8 bytes (what the wallet signs). */
export function intentMessage(f: IntentFields): Uint8Array {
  const text = [
    INTENT_TAG,
    `program: ${nameOf(f.program)}`,
    `config: ${nameOf(f.config)}`,
    `bettor: ${nameOf(f.bettor)}`,
    `side: ${f.side}`,
    `amount: ${f.amount.toString()} units`,
    `bet number: ${f.betNumber.toString()}`,
    `valid until: ${f.validUntil.toString()}`,
  ].join('\n');
  return new TextEncoder().encode(text);
}

const OWN_DATA = 0xffff;
const RECORD_LEN = 14;

/** The Ed25519 instruction verifying the bettor's `signature` over `message`: one record, key, signature and message in its own data. */
export function ed25519IntentIx(a: { bettor: PublicKey; signature: Uint8Array; message: Uint8Array }): TransactionInstruction {
  if (a.signature.length !== 64) throw new Error(`an Ed25519 signature has 64 bytes, not ${a.signature.length}`);
  const header = 2 + RECORD_LEN;
  const data = Buffer.alloc(header + 32 + 64 + a.message.length);
  data[0] = 1;
  data.set(a.bettor.toBytes(), header);
  data.set(a.signature, header + 32);
  data.set(a.message, header + 96);
  data.writeUInt16LE(header + 32, 2); // signature offset
  data.writeUInt16LE(OWN_DATA, 4);
  data.writeUInt16LE(header, 6); // public key offset
  data.writeUInt16LE(OWN_DATA, 8);
  data.writeUInt16LE(header + 96, 10); // message offset
  data.writeUInt16LE(a.message.length, 12);
  data.writeUInt16LE(OWN_DATA, 14);
  return new TransactionInstruction({ programId: ED25519_PROGRAM_ID, keys: [], data });
}

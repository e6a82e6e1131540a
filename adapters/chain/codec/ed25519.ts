/**
 * The Ed25519 program instruction that verifies signed ticks for the contract
 * (docs/decisions.md#signed-prices): one signature record per tick, each with its key, signature
 * and 48-byte message in the instruction's own data (indexes 0xFFFF), as `program/src/prices.c`
 * requires.
 *
 * @example
 *   const ix = ed25519TicksIx([exitTick, nextTick]); // records 0 and 1
 */
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import type { Tick } from '../../feed/port.ts';
import { encodeTickMessage, priceE8Of, TICK_MESSAGE_LEN } from '../../feed/tick-message.ts';

/** The Ed25519 signature-verify program. */
export const ED25519_PROGRAM_ID = new PublicKey('Ed25519SigVerify111111111111111111111111111');

const OWN_DATA = 0xffff;
const RECORD_LEN = 14;
const ENTRY_LEN = 32 + 64 + TICK_MESSAGE_LEN;

import type { SignedTick } from '../port.ts';
export type { SignedTick };

/** Whether `tick` carries a signature. */
export const isSigned = (tick: Tick | undefined): tick is SignedTick => tick?.signed !== undefined;

/** The Ed25519 instruction verifying `ticks`, record i for ticks[i]. */
export function ed25519TicksIx(ticks: readonly SignedTick[]): TransactionInstruction {
  const header = 2 + RECORD_LEN * ticks.length;
  const data = Buffer.alloc(header + ENTRY_LEN * ticks.length);
  data[0] = ticks.length;
  ticks.forEach((tick, i) => {
    const priceE8 = priceE8Of(tick.price);
    if (priceE8 === undefined) throw new Error(`tick price ${tick.price} is not 8-digit`);
    const at = header + ENTRY_LEN * i;
    data.set(new PublicKey(tick.signed.signer).toBytes(), at);
    data.set(Buffer.from(tick.signed.signature, 'base64'), at + 32);
    data.set(encodeTickMessage({ seq: BigInt(tick.signed.seq), ts: tick.ts, priceE8 }), at + 96);
    const record = 2 + RECORD_LEN * i;
    data.writeUInt16LE(at + 32, record);
    data.writeUInt16LE(OWN_DATA, record + 2);
    data.writeUInt16LE(at, record + 4);
    data.writeUInt16LE(OWN_DATA, record + 6);
    data.writeUInt16LE(at + 96, record + 8);
    data.writeUInt16LE(TICK_MESSAGE_LEN, record + 10);
    data.writeUInt16LE(OWN_DATA, record + 12);
  });
  return new TransactionInstruction({ programId: ED25519_PROGRAM_ID, keys: [], data });
}

/** Ticks n and n+1 of one signer straddling `expireTimeMs` (ts(n) <= E < ts(n+1), at most 30 s before), or undefined. */
export function exitPair(n: Tick | undefined, next: Tick | undefined, expireTimeMs: number): [SignedTick, SignedTick] | undefined {
  const pair = exitPairOrWhyNot(n, next, expireTimeMs);
  return typeof pair === 'string' ? undefined : pair;
}

const tickText = (t: Tick | undefined): string => (t === undefined ? 'none' : isSigned(t) ? `seq ${t.signed.seq} at ${t.ts}` : `unsigned at ${t.ts}`);

/**
 * The exit pair as `exitPair` forms it, or, when it cannot be formed, why not (the two ticks held
 * around the expiry), for a log line an operator can act on.
 */
export function exitPairOrWhyNot(n: Tick | undefined, next: Tick | undefined, expireTimeMs: number): [SignedTick, SignedTick] | string {
  const held = `tick at or before: ${tickText(n)}; first after: ${tickText(next)}`;
  if (!isSigned(n) || !isSigned(next)) return `no signed pair held (${held})`;
  if (n.signed.signer !== next.signed.signer || next.signed.seq !== n.signed.seq + 1) return `not consecutive ticks of one signer (${held})`;
  if (!(n.ts <= expireTimeMs && expireTimeMs < next.ts) || expireTimeMs - n.ts > 30_000) return `no pair straddles the expiry within 30 s (${held})`;
  return [n, next];
}

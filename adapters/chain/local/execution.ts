/**
 * Running one transaction on the local chain's SVM as a validator would
 * (docs/architecture.md#the-local-chain): decoding the wire, executing or simulating it with the
 * signature check asked for, the account images it reads and writes, putting images back, and the
 * Clock sysvar that follows wall time.
 */
import { Clock } from 'litesvm';
import type { Account } from 'litesvm/dist/internal.js';
import type { AccountImage } from './journal.ts';
import { RPC_CODES, RpcFailure, type Simulation } from './rpc-failure.ts';
import { base58, keyBytes, type RawSvm } from './svm.ts';
import { txErrorJson } from './tx-errors.ts';
import { MalformedTransaction, readWire, type WireFacts } from './wire.ts';

const SLOTS_PER_EPOCH = 432_000;
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** The facts of a transaction's wire bytes; a malformed one is an invalid-params RPC failure. */
export function decodeWire(wire: Uint8Array): WireFacts {
  try {
    return readWire(wire);
  } catch (err) {
    if (err instanceof MalformedTransaction) throw new RpcFailure(RPC_CODES.invalidParams, err.message);
    throw err;
  }
}

/** What running a transaction gave: its outcome and, for a successful simulation, the accounts it would leave behind. */
export interface Run extends Simulation {
  /** every account the transaction loaded, as a successful simulation would leave it (none otherwise); computed on demand */
  accountsAfter(): AccountImage[];
}

/** Simulates or executes a transaction, checking signatures only when `sigVerify` (the SVM checks them again afterwards). */
export function runTransaction(svm: RawSvm, wire: Uint8Array, facts: WireFacts, mode: 'simulate' | 'send', sigVerify: boolean): Run {
  svm.setSigverify(sigVerify);
  let res;
  try {
    res = mode === 'simulate' ? svm.simulate(wire, facts.version) : svm.send(wire, facts.version);
  } catch (err) {
    // the runtime could not even sanitize it (e.g. a signature count that does not match the header)
    throw new RpcFailure(RPC_CODES.signatureVerification, 'Transaction signature verification failure', { reason: (err as Error).message });
  } finally {
    svm.setSigverify(true);
  }
  const meta = 'meta' in res ? res.meta() : res;
  const err = 'err' in res ? txErrorJson(res.err()) : null;
  if (err === 'SignatureFailure') throw new RpcFailure(RPC_CODES.signatureVerification, 'Transaction signature verification failure');
  const after = 'postAccounts' in res ? () => res.postAccounts().map((p) => imageOf(base58(p.address), p.account())) : () => [];
  return { err, logs: meta.logs(), unitsConsumed: Number(meta.computeUnitsConsumed()), accountsAfter: after };
}

/** A LiteSVM account as an image; one without lamports does not exist. */
function imageOf(address: string, acc: Account): AccountImage {
  const lamports = acc.lamports();
  if (lamports === 0n) return { address, lamports: null, owner: SYSTEM_PROGRAM, executable: false, data: new Uint8Array() };
  return { address, lamports, owner: base58(acc.owner()), executable: acc.executable(), data: acc.data() };
}

/** The account at `key` as an image; one that does not exist has `lamports` null. */
export function accountImage(svm: RawSvm, key: Uint8Array): AccountImage {
  const addr = base58(key);
  const acc = svm.account(key);
  if (!acc) return { address: addr, lamports: null, owner: SYSTEM_PROGRAM, executable: false, data: new Uint8Array() };
  return { address: addr, ...acc };
}

/** Restores account images; executables last, so an upgradeable program finds its programdata. */
export function applyAccountImages(svm: RawSvm, images: AccountImage[]): void {
  const ordered = [...images.filter((a) => !a.executable), ...images.filter((a) => a.executable)];
  for (const a of ordered) svm.setAccount(keyBytes(a.address), { lamports: a.lamports ?? 0n, owner: a.owner, executable: a.executable, data: a.data });
}

/** Sets the Clock sysvar to `slot` at `unixSeconds` (LiteSVM does not move it by itself). */
export function setClock(svm: RawSvm, slot: number, unixSeconds: number): void {
  const s = BigInt(slot);
  const epoch = s / BigInt(SLOTS_PER_EPOCH);
  svm.setClock(new Clock(s, 0n, epoch, epoch, BigInt(unixSeconds)));
}

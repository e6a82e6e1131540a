/**
 * `snapshot.bin`, the snapshot of earlier versions: a JSON header (slot, statuses) and LiteSVM's
 * whole state in one bincode buffer — which LiteSVM refuses to write past about 45,000 accounts.
 * A data dir that has one is still opened from it; the node then finds the accounts it holds
 * (`legacyAddresses`) so that its first compaction writes them as `snapshot.jsonl`, after which
 * `snapshot.bin` is removed.
 */
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { syncDir } from '../../store/file/atomic-file.ts';
import type { StatusEntry } from './journal.ts';
import { RawSvm, keyBytes } from './svm.ts';
import type { TxErrorJson } from './tx-errors.ts';

const LEGACY = 'snapshot.bin';

/** What `snapshot.bin` holds. */
export interface LegacySnapshot {
  slot: number;
  statuses: [string, StatusEntry][];
  svm: RawSvm;
}

const Meta = v.object({ slot: v.number(), statuses: v.array(v.tuple([v.string(), v.object({ slot: v.number(), err: v.nullable(v.unknown()) })])) });

/** Reads `snapshot.bin` of `dir`; null when there is none. */
export function readLegacySnapshot(dir: string): LegacySnapshot | null {
  const path = join(dir, LEGACY);
  if (!existsSync(path)) return null;
  const buf = readFileSync(path);
  const headerLen = buf.readUInt32LE(0);
  const meta = v.parse(Meta, JSON.parse(buf.subarray(4, 4 + headerLen).toString('utf8')));
  return {
    slot: meta.slot,
    statuses: meta.statuses.map(([sig, st]) => [sig, { slot: st.slot, err: st.err as TxErrorJson | null }]),
    svm: RawSvm.fromBytes(new Uint8Array(buf.subarray(4 + headerLen))),
  };
}

/** Removes `snapshot.bin` once a `snapshot.jsonl` holds what it held. */
export function removeLegacySnapshot(dir: string): void {
  const path = join(dir, LEGACY);
  if (!existsSync(path)) return;
  unlinkSync(path);
  syncDir(dir);
}

/** Owners whose accounts a transaction can create: the system program, the loaders and the token programs. */
const ROOT_OWNERS = [
  '11111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
];

/**
 * The addresses of the accounts `svm` holds that a fresh LiteSVM does not: everything the root
 * owners own, and, program by program, what each deployed program owns (LiteSVM lists accounts
 * only by owner). Builtins and sysvars, which a fresh LiteSVM has, are left out.
 */
export function legacyAddresses(svm: RawSvm): string[] {
  const fresh = RawSvm.create();
  const found = new Set<string>();
  const owners = [...ROOT_OWNERS];
  const visited = new Set<string>();
  while (owners.length > 0) {
    const owner = owners.pop() as string;
    if (visited.has(owner)) continue;
    visited.add(owner);
    for (const acc of svm.programAccounts(keyBytes(owner))) {
      if (acc.executable) owners.push(acc.address);
      if (fresh.account(keyBytes(acc.address)) === null) found.add(acc.address);
    }
  }
  return [...found];
}

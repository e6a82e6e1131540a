/**
 * What the local chain keeps in DATA_DIR, and loaders other processes use to find it:
 * `operator.json` (admin / relayer / mint authority key, mode 0600) and
 * `chain/info.json` (genesis hash, test mint, program id); chain state lives in `chain/state/`.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { Keypair } from '@solana/web3.js';
import { syncDir } from './journal.ts';

const Info = v.object({ genesisHash: v.string(), mint: v.nullable(v.string()), programId: v.string(), ready: v.boolean() });

/** What the gateway needs to know about the local chain of a data dir. */
export type LocalChainInfo = v.InferOutput<typeof Info>;

/** Directory of the local chain inside DATA_DIR. */
export const chainDir = (dataDir: string): string => join(dataDir, 'chain');
/** Directory of the journal and snapshot. */
export const stateDir = (dataDir: string): string => join(dataDir, 'chain', 'state');
const infoPath = (dataDir: string) => join(dataDir, 'chain', 'info.json');
const operatorPath = (dataDir: string) => join(dataDir, 'operator.json');

/** The operator key of a data dir, or null when there is none yet. */
export function loadOperatorKey(dataDir: string): Keypair | null {
  const path = operatorPath(dataDir);
  if (!existsSync(path)) return null;
  const bytes = v.parse(v.pipe(v.array(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255))), v.length(64)), JSON.parse(readFileSync(path, 'utf8')));
  return Keypair.fromSecretKey(Uint8Array.from(bytes));
}

/** Loads the operator key, creating it (mode 0600) on a fresh data dir. */
export function loadOrCreateOperatorKey(dataDir: string): Keypair {
  const existing = loadOperatorKey(dataDir);
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true });
  const kp = Keypair.generate();
  writeAtomically(operatorPath(dataDir), JSON.stringify(Array.from(kp.secretKey)), 0o600);
  return kp;
}

/** The local chain's info of a data dir once its setup finished; null otherwise. */
export function loadLocalChainInfo(dataDir: string): LocalChainInfo | null {
  const info = readChainInfo(dataDir);
  return info?.ready ? info : null;
}

/** The info file as it is (also mid-setup). */
export function readChainInfo(dataDir: string): LocalChainInfo | null {
  const path = infoPath(dataDir);
  if (!existsSync(path)) return null;
  return v.parse(Info, JSON.parse(readFileSync(path, 'utf8')));
}

/** Writes the info file atomically. */
export function writeChainInfo(dataDir: string, info: LocalChainInfo): void {
  mkdirSync(chainDir(dataDir), { recursive: true });
  writeAtomically(infoPath(dataDir), JSON.stringify(info, null, 2), 0o644);
}

function writeAtomically(path: string, text: string, mode: number): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text, { mode, flush: true });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
  syncDir(join(path, '..'));
}

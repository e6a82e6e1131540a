/**
 * What the local chain keeps in DATA_DIR, and loaders other processes use to find it: one key
 * file per role (mode 0600; roles are separate: docs/architecture.md#the-local-chain) — `admin.json` (pause, roles,
 * withdraw), `relayer.json` (places and settles bets, pays fees and rent), `mint-authority.json`
 * (the test mint, the faucet), `upgrade-authority.json` (deploys the program and initialises it)
 * — and `chain/info.json` (genesis hash, test mint, program id); chain state lives in `chain/state/`.
 * A data dir from before the roles were split (`operator.json`) is refused with how to start fresh.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { Keypair } from '@solana/web3.js';
import { writeFileAtomicallySync } from '../../store/file/atomic-file.ts';

const Info = v.object({ genesisHash: v.string(), mint: v.nullable(v.string()), programId: v.string(), ready: v.boolean() });

/** What the gateway needs to know about the local chain of a data dir. */
export type LocalChainInfo = v.InferOutput<typeof Info>;

/** Directory of the local chain inside DATA_DIR. */
export const chainDir = (dataDir: string): string => join(dataDir, 'chain');
/** Directory of the journal and snapshot. */
export const stateDir = (dataDir: string): string => join(dataDir, 'chain', 'state');
const infoPath = (dataDir: string) => join(dataDir, 'chain', 'info.json');
/** The keys the local chain makes, one file each. */
export const ROLES = ['admin', 'relayer', 'mint-authority', 'upgrade-authority'] as const;
export type Role = (typeof ROLES)[number];

/** The local chain's keys, one per role. */
export type RoleKeys = Record<Role, Keypair>;

/** Path of a role's key file. */
export const roleKeyPath = (dataDir: string, role: Role): string => join(dataDir, `${role}.json`);

/** A DATA_DIR written before the roles were split: one key for every role. */
export class OldDataDirLayout extends Error {
  constructor(readonly dir: string) {
    super(
      `DATA_DIR ${dir} was made by an older version that used one key (operator.json) for every role; this version keeps admin, relayer, ` +
        `mint and upgrade authority keys apart and cannot take that chain over. Start fresh: stop every process using it, then remove ` +
        `${dir} (or point DATA_DIR at a new directory).`,
    );
    this.name = 'OldDataDirLayout';
  }
}

/** Refuses a data dir of the old layout. */
export function assertCurrentLayout(dataDir: string): void {
  if (existsSync(join(dataDir, 'operator.json'))) throw new OldDataDirLayout(dataDir);
}

/** A role's key of a data dir, or null when there is none (yet). */
export function loadRoleKey(dataDir: string, role: Role): Keypair | null {
  assertCurrentLayout(dataDir);
  const path = roleKeyPath(dataDir, role);
  if (!existsSync(path)) return null;
  const bytes = v.parse(v.pipe(v.array(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255))), v.length(64)), JSON.parse(readFileSync(path, 'utf8')));
  return Keypair.fromSecretKey(Uint8Array.from(bytes));
}

/** Loads every role's key, creating the missing ones (mode 0600) on a fresh data dir. */
export function loadOrCreateRoleKeys(dataDir: string): RoleKeys {
  assertCurrentLayout(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const out = {} as RoleKeys;
  for (const role of ROLES) {
    let kp = loadRoleKey(dataDir, role);
    if (!kp) {
      kp = Keypair.generate();
      writeFileAtomicallySync(roleKeyPath(dataDir, role), JSON.stringify(Array.from(kp.secretKey)), 0o600);
    }
    out[role] = kp;
  }
  return out;
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
  writeFileAtomicallySync(infoPath(dataDir), JSON.stringify(info, null, 2), 0o644);
}

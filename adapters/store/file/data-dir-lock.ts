/**
 * One process per part of a data dir (the embedded stores and the local chain keep their state in
 * DATA_DIR: docs/operations.md#what-the-data-dir-holds): `lockDataDir(dir, 'chain')` creates
 * `<dir>/chain.lock` holding this process's pid, or fails naming the pid that holds it. A lock left by a process that no longer
 * runs (kill -9) is taken over. Released on `release()` and when the process exits.
 *
 * @example
 *   const lock = lockDataDir('.data', 'gateway'); // throws DataDirLocked when another gateway uses .data
 *   // ... later
 *   lock.release();
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Another running process holds this part of the data dir. */
export class DataDirLocked extends Error {
  constructor(
    readonly dir: string,
    readonly part: string,
    readonly holderPid: number,
  ) {
    super(`DATA_DIR ${dir} is in use by another ${part} process (pid ${holderPid}): stop it first, or give this one its own DATA_DIR`);
    this.name = 'DataDirLocked';
  }
}

/** A held lock. */
export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** Whether a process with this pid runs (EPERM: it runs under another user). */
function running(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(path: string): number | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown };
    return typeof parsed.pid === 'number' ? parsed.pid : null;
  } catch {
    return null;
  }
}

function create(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, JSON.stringify({ pid: process.pid, since: new Date().toISOString(), argv: process.argv.slice(1) }));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Takes `<dir>/<part>.lock` for this process; throws DataDirLocked when a live process holds it. */
export function lockDataDir(dir: string, part: string): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${part}.lock`);
  for (let attempt = 0; ; attempt++) {
    if (create(path)) break;
    const holder = holderOf(path);
    // a holder that is gone, or ourselves from an earlier life with the same pid (containers), left it stale
    if (holder !== null && holder !== process.pid && running(holder)) throw new DataDirLocked(dir, part, holder);
    if (attempt > 0) throw new DataDirLocked(dir, part, holder ?? -1);
    try {
      unlinkSync(path);
    } catch {
      /* another process removed it first; the next create decides */
    }
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.removeListener('exit', release);
    if (holderOf(path) === process.pid) {
      try {
        unlinkSync(path);
      } catch {
        /* already gone */
      }
    }
  };
  process.on('exit', release);
  return { path, release };
}

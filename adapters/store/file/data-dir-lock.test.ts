import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLocked, lockDataDir } from './data-dir-lock.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const dirs: string[] = [];
const fresh = () => {
  const d = tempDir('lock-');
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('lockDataDir', () => {
  it('writes this pid and removes the file on release', () => {
    const dir = fresh();
    const lock = lockDataDir(dir, 'gateway');
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  it('refuses a part held by another live process, naming its pid, and leaves other parts free', async () => {
    const dir = fresh();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, 'chain.lock'), JSON.stringify({ pid: holder.pid }));
      const err = (() => {
        try {
          lockDataDir(dir, 'chain');
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(DataDirLocked);
      expect((err as DataDirLocked).message).toContain(`pid ${holder.pid}`);
      lockDataDir(dir, 'exchange').release();
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = fresh();
    const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((r) => dead.once('exit', r));
    writeFileSync(join(dir, 'chain.lock'), JSON.stringify({ pid: dead.pid }));
    const lock = lockDataDir(dir, 'chain');
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });
});

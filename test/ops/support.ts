/** Test helper: runs the operator CLI (`bin/ops.ts`) as a child process, as an operator would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What one CLI run printed and how it exited. */
export interface OpsRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON */
  json(): any;
}

/** `npm run ops -- <args>` with `env` on top of a copy of this process's env minus REDIS_URL/REDIS_CLUSTER_NODES/DATA_DIR. */
export function runOps(args: string[], env: Record<string, string> = {}): Promise<OpsRun> {
  const child = spawnOps(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
}

/** Starts the CLI without waiting for it (for `--follow`). */
export function spawnOps(args: string[], env: Record<string, string> = {}): ChildProcess {
  const base = { ...process.env };
  delete base.REDIS_URL;
  delete base.REDIS_CLUSTER_NODES;
  delete base.DATA_DIR;
  delete base.SOLANA_RPC_URL;
  return spawn(process.execPath, ['--import', 'tsx', 'bin/ops.ts', ...args], { cwd: ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A stack trace's frame line in output means a user mistake leaked internals. */
export const hasStackTrace = (text: string): boolean => /^\s+at .+\(.*:\d+:\d+\)$/m.test(text) || /^\s+at file:/m.test(text);

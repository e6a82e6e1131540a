/**
 * Vitest global setup: makes sure a real Redis and a real NATS (with JetStream) are
 * reachable for the tests, starting them from the machine's binaries when they are not.
 * Tests read the addresses with `inject('redisUrl')` / `inject('natsUrl')`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import type { TestProject } from 'vitest/node';
import { setTimeout as sleep } from 'node:timers/promises';
import { TEMP_ROOT_ENV, tempDir } from './temp-dir.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    natsUrl: string;
  }
}

function reachable(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function waitFor(host: string, port: number, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (await reachable(host, port)) return;
    await sleep(100);
  }
  throw new Error(`${what} did not start on ${host}:${port}`);
}

const children: ChildProcess[] = [];
const scratch: string[] = [];

function start(cmd: string, args: string[]): void {
  const child = spawn(cmd, args, { stdio: 'ignore' });
  child.on('error', (err) => {
    console.error(`cannot start ${cmd}: ${err.message} (install it, or set TEST_REDIS_URL / TEST_NATS_URL)`);
  });
  children.push(child);
}

async function ensureRedis(): Promise<string> {
  const url = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const port = Number(url.port || 6379);
  if (!(await reachable(url.hostname, port))) {
    const dir = tempDir('test-redis-');
    scratch.push(dir);
    start('redis-server', ['--bind', url.hostname, '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir]);
    await waitFor(url.hostname, port, 'redis-server');
  }
  return url.toString();
}

async function ensureNats(): Promise<string> {
  const url = new URL(process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222');
  const port = Number(url.port || 4222);
  if (!(await reachable(url.hostname, port))) {
    const dir = tempDir('test-nats-');
    scratch.push(dir);
    start('nats-server', ['-a', url.hostname, '-p', String(port), '-js', '-sd', dir]);
    await waitFor(url.hostname, port, 'nats-server');
  }
  return `nats://${url.hostname}:${port}`;
}

export default async function setup(project: TestProject): Promise<() => void> {
  // every test file's temporary directories go under one directory of this run, removed at its end (temp-dir.ts)
  const runRoot = tempDir('updown-test-run-');
  scratch.push(runRoot);
  process.env[TEMP_ROOT_ENV] = runRoot;
  const [redisUrl, natsUrl] = await Promise.all([ensureRedis(), ensureNats()]);
  project.provide('redisUrl', redisUrl);
  project.provide('natsUrl', natsUrl);
  return () => {
    for (const child of children) child.kill('SIGTERM');
    // a server stopping may still write into its directory: retried, and one that stays is not worth failing the run
    for (const dir of scratch) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      } catch {
        /* left in the system's temp dir */
      }
    }
  };
}

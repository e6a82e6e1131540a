/**
 * Real processes a fault test can kill, pause and start again on the same port and the same
 * data: a Redis that keeps its data across restarts (append-only file, fsync always), a NATS
 * server with JetStream, and the project's own services. Every process is stopped by `stop()`.
 *
 * @example
 *   const redis = await managedRedis();
 *   await redis.kill();   // SIGKILL, port closed
 *   await redis.start();  // same port, same data
 *   await redis.pause();  // SIGSTOP: the port accepts, nothing answers
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { freePort, portOpen, redisServerArgs, stopChild, waitForPort } from './servers.ts';
import { tempDir } from './temp-dir.ts';

/** A process on a fixed port that can be killed, paused and started again. */
export class Managed {
  private child: ChildProcess | null = null;
  private out = '';

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly spawnIt: () => ChildProcess,
    private readonly cleanup: () => void = () => undefined,
    private readonly readyTimeoutMs = 60_000,
  ) {}

  /** Everything the process printed since it was first started. */
  output(): string {
    return this.out;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts it and waits until its port accepts connections. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    if (await portOpen(this.port)) throw new Error(`port ${this.port} of ${this.name} is taken by something else`);
    const child = this.spawnIt();
    this.child = child;
    child.stdout?.on('data', (d: Buffer) => (this.out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.out += d.toString()));
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code, sig) => reject(new Error(`${this.name} exited early (${code ?? sig}):\n${this.out.slice(-3000)}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([waitForPort(this.port, this.readyTimeoutMs, this.name), exited]);
  }

  /** SIGKILL, waiting until it is gone. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /** Graceful stop (SIGTERM, SIGKILL after 5 s). */
  async terminate(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.signalCode === 'SIGSTOP' || !this.running) child.kill('SIGCONT');
    await stopChild(child);
    this.child = null;
  }

  private async signal(sig: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(sig);
    await exited;
    this.child = null;
  }

  /** SIGSTOP: it keeps its sockets but answers nothing. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  /** SIGCONT. */
  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Stops it for good and removes its files. */
  async stop(): Promise<void> {
    if (this.child) {
      this.child.kill('SIGCONT');
      await stopChild(this.child);
      this.child = null;
    }
    this.cleanup();
  }
}

/** A Redis on a free port whose data survives kill -9 and restart (AOF, fsync on every write). */
export async function managedRedis(): Promise<Managed & { url: string }> {
  const port = await freePort();
  const dir = tempDir('fault-redis-');
  const m = new Managed(
    'redis-server',
    port,
    () =>
      spawn('redis-server', redisServerArgs(port, dir, '--appendonly', 'yes', '--appendfsync', 'always'), {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  await m.start();
  return Object.assign(m, { url: `redis://127.0.0.1:${port}` });
}

/** A NATS server with JetStream on a free port (its store survives restarts). */
export async function managedNats(): Promise<Managed & { url: string }> {
  const port = await freePort();
  const dir = tempDir('fault-nats-');
  const m = new Managed(
    'nats-server',
    port,
    () => spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: ['ignore', 'pipe', 'pipe'] }),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  await m.start();
  return Object.assign(m, { url: `nats://127.0.0.1:${port}` });
}

/** One of the project's processes (`bin/<script>.ts`) with `env`, ready once `port` accepts. */
export function managedService(script: string, env: Record<string, string>, port: number): Managed {
  return new Managed(
    `${script} :${port}`,
    port,
    () =>
      spawn(process.execPath, ['--import', 'tsx', `bin/${script}.ts`], {
        env: { ...process.env, LOG_LEVEL: 'info', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    undefined,
    120_000,
  );
}

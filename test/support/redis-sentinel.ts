/**
 * A Redis primary, one replica and three Sentinels on free loopback ports
 * (docs/operations.md#redis-with-sentinel), for fault tests: any node can be SIGKILLed, paused
 * (SIGSTOP), resumed and started again on the same port, and a test waits for the Sentinels to
 * name a new primary; a replica can be cut off the stream so that the primary's next writes exist
 * nowhere else. Sentinels declare a primary down after 1 s and may retry a failover after
 * 2 s. `stop()` ends every process and removes their files.
 *
 * @example
 *   const set = await startSentinelSet();
 *   const env = { REDIS_SENTINELS: set.sentinels, REDIS_MASTER_NAME: set.masterName };
 *   const old = await set.primaryPort();
 *   await set.node(old).kill();
 *   const now = await set.waitForFailover(old); // the promoted replica's port
 *   await set.stop();
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Managed } from './managed.ts';
import { freePort, redisServerArgs } from './servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './temp-dir.ts';

/** The running set. */
export interface SentinelSet {
  masterName: string;
  /** `127.0.0.1:<port>,...` of the three Sentinels (REDIS_SENTINELS) */
  sentinels: string;
  /** the data nodes (first: the primary at start) */
  nodes: Managed[];
  sentinelNodes: Managed[];
  /** the data node on `port` */
  node(port: number): Managed;
  /** the primary's port as the Sentinels name it now (asks each until one answers) */
  primaryPort(): Promise<number>;
  /** waits until the Sentinels name another primary than `fromPort`, and it answers as a primary; its port */
  waitForFailover(fromPort: number, timeoutMs?: number): Promise<number>;
  /** the role a data node reports (`master`, `slave`), null when it does not answer */
  roleOf(port: number): Promise<string | null>;
  /** a data node's `INFO replication`, null when it does not answer */
  replicationOf(port: number): Promise<string | null>;
  /**
   * Cuts the replica on `port` off the replication stream: SIGSTOP, then the primary closes its
   * link, so nothing the primary writes from now on reaches it (a paused replica alone would read
   * what its socket buffered once resumed, and reconnect). `node(port).resume()` lets it run again.
   */
  cutOff(port: number): Promise<void>;
  /** Waits until the data node that is not the primary is its replica again, in sync; both ports. */
  replicaInSync(timeoutMs?: number): Promise<{ primary: number; replica: number }>;
  stop(): Promise<void>;
}

const MASTER = 'sentinel-test';

/** A short-lived client for one question; null when the node does not answer in time. */
async function ask<T>(port: number, question: (r: Redis) => Promise<T>): Promise<T | null> {
  const r = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    connectTimeout: 500,
    commandTimeout: 500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await question(r);
  } catch {
    return null;
  } finally {
    r.disconnect();
  }
}

function dataNode(port: number, dir: string, replicaOf: number | null): Managed {
  const args = redisServerArgs(port, dir, '--appendonly', 'no', '--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0');
  if (replicaOf !== null) args.push('--replicaof', '127.0.0.1', String(replicaOf));
  return new Managed(`redis :${port}`, port, () => spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] }));
}

function sentinelNode(port: number, dir: string, primary: number): Managed {
  const conf = join(dir, `sentinel-${port}.conf`);
  // a Sentinel rewrites its own file (what it learnt); written once, so a restarted one goes on from there
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${MASTER} 127.0.0.1 ${primary} 2`,
      `sentinel down-after-milliseconds ${MASTER} 1000`,
      `sentinel failover-timeout ${MASTER} 2000`,
      `sentinel parallel-syncs ${MASTER} 1`,
      '',
    ].join('\n'),
  );
  return new Managed(`sentinel :${port}`, port, () => spawn('redis-server', [conf, '--sentinel'], { stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** Starts the primary, its replica (waiting until it is in sync) and three Sentinels (waiting until they see the replica). */
export async function startSentinelSet(): Promise<SentinelSet> {
  const dir = tempDir('redis-sentinel-');
  const [p0, p1] = [await freePort(), await freePort()];
  for (const sub of ['a', 'b']) mkdirSync(join(dir, sub));
  const nodes = [dataNode(p0, join(dir, 'a'), null), dataNode(p1, join(dir, 'b'), p0)];
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  const sentinelNodes = sentinelPorts.map((p) => sentinelNode(p, dir, p0));
  const all = [...nodes, ...sentinelNodes];

  const set: SentinelSet = {
    masterName: MASTER,
    sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
    nodes,
    sentinelNodes,
    node(port) {
      const n = nodes.find((x) => x.port === port);
      if (!n) throw new Error(`no data node on port ${port}`);
      return n;
    },
    async primaryPort() {
      for (let i = 0; i < 100; i++) {
        for (const p of sentinelPorts) {
          const addr = await ask(p, (r) => r.call('SENTINEL', 'get-master-addr-by-name', MASTER) as Promise<[string, string] | null>);
          if (addr) return Number(addr[1]);
        }
        await sleep(100);
      }
      throw new Error('no sentinel names a primary');
    },
    async roleOf(port) {
      return ask(port, async (r) => String(((await r.call('ROLE')) as unknown[])[0]));
    },
    async replicationOf(port) {
      return ask(port, (r) => r.info('replication'));
    },
    async cutOff(port) {
      const primary = await set.primaryPort();
      if (primary === port) throw new Error(`:${port} is the primary, not a replica`);
      set.node(port).pause();
      await waitUntil(async () => {
        await ask(primary, (r) => r.call('CLIENT', 'KILL', 'TYPE', 'replica'));
        return (await set.replicationOf(primary))?.includes('connected_slaves:0') === true;
      }, `the primary :${primary} without its replica :${port}`);
    },
    async replicaInSync(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const primary = await set.primaryPort();
        const other = nodes.find((n) => n.port !== primary);
        const info = other ? await set.replicationOf(other.port) : null;
        if (other && info?.includes('role:slave') && info.includes('master_link_status:up')) return { primary, replica: other.port };
        await sleep(200);
      }
      throw new Error(`timed out waiting for the replica in sync (${timeoutMs} ms)`);
    },
    async waitForFailover(fromPort, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const now = await set.primaryPort().catch(() => fromPort);
        if (now !== fromPort && (await set.roleOf(now)) === 'master') return now;
        await sleep(100);
      }
      throw new Error(`the sentinels named no new primary instead of :${fromPort} within ${timeoutMs} ms`);
    },
    async stop() {
      await Promise.all(all.map((m) => m.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    await nodes[0]?.start();
    await nodes[1]?.start();
    await waitUntil(async () => (await ask(p1, (r) => r.info('replication')))?.includes('master_link_status:up') === true, 'the replica in sync');
    for (const s of sentinelNodes) await s.start();
    await waitUntil(async () => {
      for (const p of sentinelPorts) {
        const replicas = await ask(p, (r) => r.call('SENTINEL', 'replicas', MASTER) as Promise<unknown[]>);
        const sentinels = await ask(p, (r) => r.call('SENTINEL', 'sentinels', MASTER) as Promise<unknown[]>);
        if (!replicas || replicas.length < 1 || !sentinels || sentinels.length < 2) return false;
      }
      return true;
    }, 'every sentinel seeing the replica and the two other sentinels');
  } catch (err) {
    await set.stop();
    throw err;
  }
  return set;
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

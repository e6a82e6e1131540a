/**
 * A Redis Cluster of three masters (no replicas) on free loopback ports, for tests that show the
 * services' scripts run on a cluster (docs/operations.md#redis-cluster). Each node is a `Managed`
 * process (its data in an append-only file, so a killed node comes back with it); the slots are
 * assigned with `redis-cli --cluster create`, and `start` returns once every node reports
 * `cluster_state:ok`.
 *
 * @example
 *   const cluster = await startRedisCluster();
 *   cluster.nodes;     // '127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003' (REDIS_CLUSTER_NODES)
 *   await cluster.stop();
 */
import { execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { Managed } from './managed.ts';
import { freePort, portOpen, redisServerArgs, startRedisServer } from './servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './temp-dir.ts';

const run = promisify(execFile);

/** A running three-master cluster. */
export interface RedisClusterHandle {
  /** the masters, in start order */
  members: Managed[];
  /** `host:port,host:port,host:port`, the form `REDIS_CLUSTER_NODES` takes */
  nodes: string;
  /** the first node's URL (a seed) */
  url: string;
  /** waits until every running node reports `cluster_state:ok` */
  waitHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A free port whose cluster bus port (port + 10000) is free too. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 > 65_535 || taken.has(port)) continue;
    if (await portOpen(port + 10_000)) continue;
    taken.add(port);
    return port;
  }
}

async function clusterState(port: number): Promise<string> {
  try {
    const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'cluster', 'info'], { timeout: 2_000 });
    return /cluster_state:(\w+)/.exec(stdout)?.[1] ?? 'unknown';
  } catch {
    return 'unreachable';
  }
}

/** Starts three masters, assigns all 16384 slots among them and waits for `cluster_state:ok`. */
export async function startRedisCluster(): Promise<RedisClusterHandle> {
  const taken = new Set<number>();
  const members: Managed[] = [];
  const dirs: string[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await clusterPort(taken);
    const dir = tempDir(`redis-cluster-${i}-`);
    dirs.push(dir);
    members.push(
      new Managed(`redis-cluster-${i}`, port, () =>
        spawn(
          'redis-server',
          redisServerArgs(
            port,
            dir,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            '2000',
            '--appendonly',
            'yes',
            '--appendfsync',
            'everysec',
          ),
          { stdio: ['ignore', 'pipe', 'pipe'] },
        ),
      ),
    );
  }
  const stop = async () => {
    await Promise.all(members.map((m) => m.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(members.map((m) => m.start()));
    const addresses = members.map((m) => `127.0.0.1:${m.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    const waitHealthy = async (timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const states = await Promise.all(members.filter((m) => m.running).map((m) => clusterState(m.port)));
        if (states.every((s) => s === 'ok')) return;
        if (Date.now() > deadline) throw new Error(`redis cluster not healthy within ${timeoutMs} ms: ${states.join(', ')}`);
        await sleep(100);
      }
    };
    await waitHealthy();
    return { members, nodes: addresses.join(','), url: `redis://${addresses[0]}`, waitHealthy, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A private Redis for one service under test: its URL, the env that points the service at it, and its stop. */
export interface PrivateRedis {
  /** the server's URL (on a cluster: one of its nodes) */
  url: string;
  /** `REDIS_URL`, or on a cluster `REDIS_CLUSTER_NODES` with `REDIS_URL` emptied (not inherited) */
  env: Record<string, string>;
  /** the cluster's `host:port` list, or null for one server */
  clusterNodes: string | null;
  stop(): Promise<void>;
}

/** Starts one Redis server, or a three-master cluster, on free loopback ports. */
export async function startPrivateRedis(kind: 'server' | 'cluster'): Promise<PrivateRedis> {
  if (kind === 'cluster') {
    const cluster = await startRedisCluster();
    return { url: cluster.url, env: { REDIS_URL: '', REDIS_CLUSTER_NODES: cluster.nodes }, clusterNodes: cluster.nodes, stop: () => cluster.stop() };
  }
  const server = await startRedisServer();
  return { url: server.url, env: { REDIS_URL: server.url }, clusterNodes: null, stop: () => server.stop() };
}

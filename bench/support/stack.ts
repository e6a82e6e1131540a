/**
 * The parts a gateway benchmark runs against, each its own process as in production: a private
 * Redis, `npm run chain` on a fresh data dir, a latency proxy in front of the chain's JSON-RPC and
 * PubSub ports (counting RPC calls; 0 ms unless asked), and `npm run gateway` pointed at them.
 * Everything is stopped by `stop()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Managed, managedService } from '../../test/support/managed.ts';
import { freePort, startRedisServer, stopChild, waitForPort, type RunningServer } from '../../test/support/servers.ts';
import { startLatencyProxy, type LatencyProxy } from './latency-proxy.ts';
import type { CommitText } from '../../adapters/store/exchange/redis.ts';
import { tempDir } from '../../test/support/temp-dir.ts';

/** Whether `port` can be listened on now. */
const free = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer().once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** Two adjacent free ports (the chain serves PubSub on its JSON-RPC port + 1). */
async function portPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (await free(port + 1)) return port;
  }
}

/** A running chain process with its proxies. */
export interface ChainUnderTest {
  process: Managed;
  dataDir: string;
  /** JSON-RPC through the proxy */
  rpcUrl: string;
  wsUrl: string;
  /** JSON-RPC straight to the chain (baselines) */
  directUrl: string;
  rpcProxy: LatencyProxy;
  wsProxy: LatencyProxy;
  stop(): Promise<void>;
}

/** Starts `npm run chain` on a fresh data dir (contract parameters from `init`) or on `dataDir`, behind proxies adding `oneWayMs`. */
export async function startChain(init: Record<string, string>, oneWayMs = 0, existing?: string): Promise<ChainUnderTest> {
  const dataDir = existing ?? tempDir('bench-chain-');
  const port = await portPair();
  const chain = managedService('chain', { DATA_DIR: dataDir, CHAIN_PORT: String(port), LOG_LEVEL: 'warn', ...init }, port);
  await chain.start();
  await waitForPort(port + 1, 10_000, 'chain subscriptions');
  const rpcProxy = await startLatencyProxy(port, oneWayMs);
  const wsProxy = await startLatencyProxy(port + 1, oneWayMs);
  return {
    process: chain,
    dataDir,
    rpcUrl: `http://127.0.0.1:${rpcProxy.port}`,
    wsUrl: `ws://127.0.0.1:${wsProxy.port}`,
    directUrl: `http://127.0.0.1:${port}`,
    rpcProxy,
    wsProxy,
    stop: async () => {
      await rpcProxy.stop();
      await wsProxy.stop();
      await chain.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A running gateway process. */
export interface GatewayUnderTest {
  process: Managed;
  /** http://127.0.0.1:<port> */
  base: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts `npm run gateway` on `chain` (through its proxies) and `redis`, Profile A, test mode. */
export async function startGatewayProcess(
  chain: ChainUnderTest,
  redis: RunningServer | null,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<GatewayUnderTest> {
  const port = await freePort();
  const vars = {
    DATA_DIR: chain.dataDir,
    GATEWAY_PORT: String(port),
    SOLANA_RPC_URL: chain.rpcUrl,
    SOLANA_WS_URL: chain.wsUrl,
    LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL ?? 'warn',
    ...(redis ? { REDIS_URL: redis.url } : {}),
    ...env,
  };
  const gateway = new Managed(`gateway :${port}`, port, () =>
    spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bin/gateway.ts'], { env: { ...process.env, ...vars }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  await gateway.start();
  return { process: gateway, base: `http://127.0.0.1:${port}`, pid: gateway.pid as number, stop: () => gateway.stop() };
}

/** A running exchange process. */
export interface ExchangeUnderTest {
  process: Managed;
  /** http://127.0.0.1:<port> */
  base: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts `npm run exchange` on `redis` with synthetic books (EXCHANGE_FEED=synthetic), in a fresh DATA_DIR. */
export async function startExchangeProcess(redis: RunningServer, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ExchangeUnderTest> {
  const port = await freePort();
  const mgmtPort = await freePort();
  const dataDir = tempDir('bench-exchange-');
  const vars = {
    DATA_DIR: dataDir,
    EXCHANGE_PORT: String(port),
    EXCHANGE_MGMT_PORT: String(mgmtPort),
    EXCHANGE_FEED: 'synthetic',
    REDIS_URL: redis.url,
    LOG_LEVEL: process.env.BENCH_EXCHANGE_LOG_LEVEL ?? 'warn',
    ...env,
  };
  const exchange = new Managed(
    `exchange :${port}`,
    port,
    () => spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bin/exchange.ts'], { env: { ...process.env, ...vars }, stdio: ['ignore', 'pipe', 'pipe'] }),
    () => rmSync(dataDir, { recursive: true, force: true }),
  );
  await exchange.start();
  return { process: exchange, base: `http://127.0.0.1:${port}`, pid: exchange.pid as number, stop: () => exchange.stop() };
}

/** Node flags for the exchange process, from BENCH_EXCHANGE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof"). */
export const measuredExchangeArgs = (): string[] => (process.env.BENCH_EXCHANGE_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** A private Redis for one benchmark. */
export const startBenchRedis = startRedisServer;

/** The bare uWS baseline server in its own process (its JSON about `bodyBytes` long when given); resolves with its URL. */
export async function startBareServer(bodyBytes?: number): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const args = [join(import.meta.dirname, 'bare-server.ts'), String(port), ...(bodyBytes === undefined ? [] : [String(bodyBytes)])];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: 'inherit' });
  await waitForPort(port, 20_000, 'bare uWS server');
  return { url: `http://127.0.0.1:${port}/bare`, pid: child.pid as number, stop: () => stopChild(child) };
}

/** What the floor service of the market-order benchmark is started with (`floor-server.ts`). */
export interface FloorConfig {
  redisUrl: string;
  /** key prefix of the floor's accounts (not the exchange's: the floor never touches the exchange's state) */
  prefix: string;
  accountIds: string[];
  /** the change of a real order (its stored order, journal entry, equity point, final state) */
  change: CommitText;
  /** the exchange's answer to that order (JSON) */
  answer: string;
}

/** The floor service (`floor-server.ts`) in its own process; resolves with its base URL and pid once it listens. */
export async function startFloorServer(config: FloorConfig): Promise<{ base: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const dir = tempDir('bench-floor-');
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'floor-server.ts'), String(port), file], {
    stdio: 'inherit',
  });
  await waitForPort(port, 20_000, 'floor service');
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Node flags for the gateway of the measured phase, from BENCH_GATEWAY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof"). */
export const measuredGatewayArgs = (): string[] => (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);

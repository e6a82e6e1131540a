/**
 * A whole gateway stack for black-box suites: a private NATS and Redis, the local chain as its own
 * process, and the gateway process (`bin/gateway.ts`), all on free loopback ports and a fresh
 * data dir. The test publishes ticks on NATS and talks HTTP/WebSocket like any client. With
 * `{ redis: 'cluster' }` the gateway's stores are on a private Redis Cluster of three masters
 * (`REDIS_CLUSTER_NODES`) instead of one server.
 */
import { rmSync } from 'node:fs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import WebSocket from 'ws';
import { checkAnswer } from './openapi-contract.ts';
import { startPrivateRedis } from './redis-cluster.ts';
import { freePort, startNatsServer, startService, type RunningServer, type ServiceProcess } from './servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './temp-dir.ts';

export interface GatewayStack {
  base: string;
  wsUrl: string;
  dataDir: string;
  nats: NatsConnection;
  gatewayEnv: Record<string, string>;
  gateway: ServiceProcess;
  chain: ServiceProcess;
  /** publishes a SOL tick on `market.price.solusdt` (price as a decimal string, ts unix ms) */
  tick(price: string, ts?: number): Promise<void>;
  /** stops the gateway (SIGKILL by default) and starts it again, with `env` on top of its first env */
  restartGateway(signal?: NodeJS.Signals, env?: Record<string, string>): Promise<void>;
  /** a second gateway process on the same chain, NATS and data dir, with `env` on top (e.g. its own Redis) */
  extraGateway(env: Record<string, string>): Promise<{ base: string; process: ServiceProcess }>;
  chainUrl: string;
  /** the Redis server's URL (on a cluster: one of its nodes) */
  redisUrl: string;
  /** the Redis target in the gateway's env: `REDIS_URL`, or `REDIS_CLUSTER_NODES` on a cluster */
  redisEnv: Record<string, string>;
  stop(): Promise<void>;
}

/** What the stack runs on besides its defaults. */
export interface GatewayStackOptions {
  /** one Redis server (default) or a Redis Cluster of three masters */
  redis?: 'server' | 'cluster';
}

export async function startGatewayStack(env: Record<string, string> = {}, options: GatewayStackOptions = {}): Promise<GatewayStack> {
  const natsServer = await startNatsServer();
  const redisServer = await startPrivateRedis(options.redis ?? 'server');
  const servers: Array<Pick<RunningServer, 'stop'>> = [natsServer, redisServer];
  const dataDir = tempDir('gw-stack-');
  const chainPort = await freePort();
  const gwPort = await freePort();
  const shared = {
    DATA_DIR: dataDir,
    GW_EXPIRY_SECONDS: '3',
    ...env,
  };
  const chain = await startService('chain', { ...shared, CHAIN_PORT: String(chainPort) }, chainPort, 120_000);
  const gatewayEnv = {
    ...shared,
    GATEWAY_PORT: String(gwPort),
    NATS_URL: natsServer.url,
    ...redisServer.env,
    SOLANA_RPC_URL: `http://127.0.0.1:${chainPort}`,
    SMART_SETTLE_INTERVAL_MS: '200',
    GW_ADMIN_TOKEN: 'test-admin-token',
    // a restarted gateway keeps its node id, so it takes its own leader lease back at once
    GW_NODE_ID: 'gw-stack',
    ...env,
  };
  const extras: ServiceProcess[] = [];
  const stack: GatewayStack = {
    chainUrl: `http://127.0.0.1:${chainPort}`,
    redisUrl: redisServer.url,
    redisEnv: redisServer.env,
    base: `http://127.0.0.1:${gwPort}`,
    wsUrl: `ws://127.0.0.1:${gwPort}/api/ws`,
    dataDir,
    nats: await connect({ servers: natsServer.url }),
    gatewayEnv,
    chain,
    gateway: await startService('gateway', gatewayEnv, gwPort, 120_000),
    async tick(price, ts = Date.now()) {
      stack.nats.publish('market.price.solusdt', JSON.stringify({ symbol: 'solusdt', price, ts }));
      await stack.nats.flush();
    },
    async restartGateway(signal = 'SIGKILL', env = {}) {
      await stack.gateway.stop(signal);
      Object.assign(gatewayEnv, env);
      stack.gateway = await startService('gateway', gatewayEnv, gwPort, 120_000);
    },
    async extraGateway(env) {
      const port = await freePort();
      const proc = await startService('gateway', { ...gatewayEnv, GW_NODE_ID: `gw-extra-${port}`, ...env, GATEWAY_PORT: String(port) }, port, 120_000);
      extras.push(proc);
      return { base: `http://127.0.0.1:${port}`, process: proc };
    },
    async stop() {
      await stack.nats.close().catch(() => undefined);
      await Promise.all([stack.gateway.stop(), ...extras.map((p) => p.stop())]);
      await chain.stop();
      await Promise.all(servers.map((s) => s.stop()));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return stack;
}

export interface JsonReply {
  status: number;
  headers: Headers;
  body: any;
}

/** fetch + JSON; never throws on a status; no document check (services without one: the chain's JSON-RPC, a management port). */
export async function fetchJson(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply & { text: string }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/**
 * `fetchJson`, with every answer checked against the service's OpenAPI document
 * (`/openapi.json`): an undocumented route, status or body shape throws.
 */
export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonReply> {
  const { text, ...reply } = await fetchJson(base, method, path, body, headers);
  await checkAnswer(base, { method, path, status: reply.status, contentType: reply.headers.get('content-type'), text });
  return reply;
}

/** A WebSocket client that records every JSON message it receives. */
export class EventClient {
  readonly events: any[] = [];
  /** `resume` messages (sent first on a connect with `since`), kept apart from the events */
  readonly resumes: any[] = [];
  private readonly ws: WebSocket;
  readonly opened: Promise<void>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      (message.type === 'resume' ? this.resumes : this.events).push(message);
    });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
  }

  /** Resolves with the first recorded event matching `pred` (waiting up to `timeoutMs`). */
  async waitFor(pred: (e: any) => boolean, timeoutMs = 20_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const hit = this.events.find(pred);
      if (hit) return hit;
      await sleep(25);
    }
    throw new Error(`no matching event within ${timeoutMs} ms; got types ${this.events.map((e) => e.type).join(',')}`);
  }

  close(): void {
    this.ws.close();
  }
}

export { sleep };

/** Waits until wall time reaches `unixMs`. */
export const until = (unixMs: number) => sleep(Math.max(0, unixMs - Date.now()));

/**
 * One bet placed and settled (payout_done) through `stack`'s API and event stream, with its
 * manual prices: a wallet funded by the faucet, UP at 150.00, the expiry priced 151.00. Returns
 * the bettor's address and the bet's id.
 */
export async function betAndSettleOnce(stack: GatewayStack): Promise<{ address: string; betId: string }> {
  const api = (method: string, path: string, body?: unknown) => call(stack.base, method, path, body);
  const ws = new EventClient(stack.wsUrl);
  try {
    await ws.opened;
    const wallet = await api('POST', '/api/wallet', {});
    await api('GET', `/api/faucet/${wallet.body.address}`);
    await stack.tick('150.00');
    const bet = await api('POST', '/api/bet', { address: wallet.body.address, side: 'UP', amountUnits: '100000000' });
    if (bet.status !== 200) throw new Error(`POST /api/bet answered ${bet.status}: ${JSON.stringify(bet.body)}`);
    const open = await ws.waitFor((e) => e.type === 'bet_open' && e.id === bet.body.id);
    await until(open.expireTime * 1000 - 400);
    await stack.tick('151.00', open.expireTime * 1000 - 1);
    await until(open.expireTime * 1000 + 50);
    await stack.tick('152.00');
    await ws.waitFor((e) => e.type === 'bet_closed' && e.id === bet.body.id);
    return { address: wallet.body.address, betId: bet.body.id };
  } finally {
    ws.close();
  }
}

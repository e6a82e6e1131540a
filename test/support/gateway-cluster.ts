/**
 * Several gateway processes on one NATS (JetStream), one Redis and one local chain process, for
 * the multi-node suites: every process is real and can be SIGKILLed; a ticker publishes a SOL
 * random walk on `market.price.solusdt` every 200 ms.
 *
 * @example
 *   const cluster = await GatewayCluster.start(3);
 *   const leader = await cluster.leader();
 *   await cluster.stop();
 */
import { rmSync } from 'node:fs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BettingLoop } from './betting-loop.ts';
import { logLines } from './gateway-log.ts';
import type { ClusterServer, NatsCluster } from './nats-cluster.ts';
import { request, sleep } from './client-request.ts';
import { managedNats, managedRedis, managedService, type Managed } from './managed.ts';
import { freePort } from './servers.ts';
import { tempDir } from './temp-dir.ts';

/** One gateway of the cluster. */
export interface ClusterNode {
  id: string;
  base: string;
  ws: string;
  process: Managed;
}

/** A local chain process on `dataDir` with the cluster's 3 s windows, started. */
export async function startClusterChain(dataDir: string): Promise<{ chain: Managed; chainPort: number }> {
  const chainPort = await freePort();
  const chain = managedService('chain', { DATA_DIR: dataDir, CHAIN_PORT: String(chainPort), GW_EXPIRY_SECONDS: '3' }, chainPort);
  await chain.start();
  return { chain, chainPort };
}

/** Where a cluster gateway runs and what it talks to. */
export interface ClusterGatewaySpec {
  id: string;
  port: number;
  dataDir: string;
  natsUrl: string;
  redisUrl: string;
  chainPort: number;
  /** on top of the cluster's env */
  env?: Record<string, string>;
}

/** A gateway process (not started) with the cluster's short windows, fast settlement and a 1.5 s lease. */
export function clusterGateway(g: ClusterGatewaySpec): Managed {
  return managedService(
    'gateway',
    {
      DATA_DIR: g.dataDir,
      GATEWAY_PORT: String(g.port),
      NATS_URL: g.natsUrl,
      REDIS_URL: g.redisUrl,
      SOLANA_RPC_URL: `http://127.0.0.1:${g.chainPort}`,
      SMART_SETTLE_INTERVAL_MS: '200',
      GW_EXPIRY_SECONDS: '3',
      GW_LEASE_TTL_MS: '1500',
      GW_NODE_ID: g.id,
      ...g.env,
    },
    g.port,
  );
}

/** The NATS the gateways share: one server, or the servers of a cluster (`url` lists them all). */
export interface ClusterNats {
  url: string;
  stop(): Promise<void>;
}

export class GatewayCluster {
  private ticker: NodeJS.Timeout | null = null;
  private price = 150;
  /** a fixed price for every tick (every window a tie), or null for the random walk */
  fixedPrice: string | null = null;

  private constructor(
    readonly dataDir: string,
    readonly nats: ClusterNats,
    readonly redis: Managed & { url: string },
    readonly chain: Managed,
    readonly nodes: ClusterNode[],
    private readonly nc: NatsConnection,
  ) {}

  /**
   * Starts `n` gateways (ids gw-1..gw-n) with short windows; `env` goes on top of every gateway's
   * env; `nats` is the NATS they share [one server of their own] (stopped with the cluster).
   */
  static async start(n: number, env: Record<string, string> = {}, nats?: ClusterNats): Promise<GatewayCluster> {
    const dataDir = tempDir('gw-cluster-');
    nats ??= await managedNats();
    const redis = await managedRedis();
    const { chain, chainPort } = await startClusterChain(dataDir);
    const nodes: ClusterNode[] = [];
    for (let i = 1; i <= n; i++) {
      const port = await freePort();
      const process = clusterGateway({ id: `gw-${i}`, port, dataDir, natsUrl: nats.url, redisUrl: redis.url, chainPort, env });
      nodes.push({ id: `gw-${i}`, base: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}/api/ws`, process });
    }
    // one at a time: the first boot initialises the contract and the key store secret
    await nodes[0]!.process.start();
    await Promise.all(nodes.slice(1).map((node) => node.process.start()));
    const nc = await connect({ servers: nats.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    const cluster = new GatewayCluster(dataDir, nats, redis, chain, nodes, nc);
    cluster.ticker = setInterval(() => {
      cluster.price *= Math.exp(0.0004 * (Math.random() - 0.5));
      const price = cluster.fixedPrice ?? cluster.price.toFixed(8);
      if (!nc.isClosed()) nc.publish('market.price.solusdt', JSON.stringify({ symbol: 'solusdt', price, ts: Date.now() }));
    }, 200);
    return cluster;
  }

  /** JSON-RPC URL of the chain process. */
  get chainUrl(): string {
    return `http://127.0.0.1:${this.chain.port}`;
  }

  /** `/health` of every running node. */
  async healths(): Promise<Array<{ node: ClusterNode; leader: boolean; status: number; body: { node?: string; leader?: boolean } }>> {
    const running = this.nodes.filter((n) => n.process.running);
    return Promise.all(
      running.map(async (node) => {
        const r = await request(node.base, 'GET', '/health', undefined, 3_000);
        return { node, status: r.status, body: r.body ?? {}, leader: r.body?.leader === true };
      }),
    );
  }

  /** Waits until exactly one running node says it leads; returns it. */
  async leader(timeoutMs = 15_000): Promise<ClusterNode> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const leaders = (await this.healths()).filter((h) => h.leader);
      if (leaders.length === 1) return leaders[0]!.node;
      if (Date.now() > deadline) throw new Error(`${leaders.length} leaders after ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  /** A funded custodial wallet, created on `node`. */
  async wallet(node: ClusterNode): Promise<string> {
    const w = await request(node.base, 'POST', '/api/wallet', {});
    const f = await request(node.base, 'GET', `/api/faucet/${w.body?.address}`);
    if (w.status !== 200 || f.status !== 200) throw new Error(`wallet setup on ${node.id} failed: ${w.status} ${f.status}`);
    return w.body.address as string;
  }

  /** `perNode` funded wallets made on each node, then a moment for a price tick to reach every node. */
  async walletsOnEveryNode(perNode: number): Promise<string[]> {
    const addresses: string[] = [];
    for (const node of this.nodes) for (let k = 0; k < perNode; k++) addresses.push(await this.wallet(node));
    await sleep(600);
    return addresses;
  }

  /** Bettors whose attempts go round the nodes not in `away` (a faulted node gets no bets until it is back). */
  bettingLoop(wallets: readonly string[], away: ReadonlySet<ClusterNode>): BettingLoop {
    return new BettingLoop({
      wallets,
      gateway: (i, attempt) => {
        const up = this.nodes.filter((n) => !away.has(n));
        return up[(i + attempt) % up.length]!.base;
      },
    });
  }

  async stop(): Promise<void> {
    if (this.ticker) clearInterval(this.ticker);
    await this.nc.close().catch(() => undefined);
    await Promise.all(this.nodes.map((n) => n.process.stop()));
    await this.chain.stop();
    await this.nats.stop();
    await this.redis.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** The NATS server the gateway's event-stream connection is on now, from its log. */
export function serverOfGateway(node: ClusterNode, nats: NatsCluster): ClusterServer | undefined {
  const line = logLines(node.process.output())
    .filter((l) => l.connection === 'gateway-events' && (l.msg === 'connected to NATS' || l.msg === 'NATS reconnect'))
    .at(-1);
  const where = String(line?.server ?? (line?.status as { server?: string } | undefined)?.server ?? '');
  return nats.servers.find((s) => where.endsWith(`:${s.port}`));
}

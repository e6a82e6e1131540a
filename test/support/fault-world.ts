/**
 * A gateway with bettors for fault tests: the local chain, NATS and (optionally) Redis as real
 * processes that the test kills and pauses, a ticker publishing a SOL random walk every 200 ms
 * (every tick remembered, to check exit prices), funded custodial wallets that bet in loops, and
 * a WebSocket client that reconnects with `?since=<last seq>` whenever its socket drops.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { PublicKey } from '@solana/web3.js';
import WebSocket from 'ws';
import { loadRoleKey } from '../../adapters/chain/local/data-dir.ts';
import { ChainUnavailable, type BetAccount } from '../../adapters/chain/port.ts';
import { RpcChain } from '../../adapters/chain/rpc-chain/index.ts';
import { BettingLoop } from './betting-loop.ts';
import { request, sleep } from './client-request.ts';
import { managedNats, managedRedis, managedService, type Managed } from './managed.ts';
import { freePort } from './servers.ts';
import { tempDir } from './temp-dir.ts';

// the fault suites import the client's request from the world they run in
export { request, sleep };

export interface Tick {
  ts: number;
  price: string;
}

/** A WebSocket client that resumes with `since` after every drop, and records every event once received. */
export class ResumingClient {
  readonly events: any[] = [];
  /** `resume` messages, one per connect, kept apart from the events */
  readonly resumeMessages: any[] = [];
  lastSeq = 0;
  resumes = 0;
  private ws: WebSocket | null = null;
  private closed = false;

  constructor(private readonly url: string) {
    this.connect(0);
  }

  private connect(since: number): void {
    if (this.closed) return;
    const ws = new WebSocket(`${this.url}?since=${since}`);
    this.ws = ws;
    ws.on('message', (data) => {
      const e = JSON.parse(String(data));
      if (e.type === 'resume') {
        this.resumeMessages.push(e);
        return;
      }
      this.events.push(e);
      if (typeof e.seq === 'number' && e.seq > this.lastSeq) this.lastSeq = e.seq;
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      if (this.closed) return;
      setTimeout(() => {
        this.resumes++;
        this.connect(this.lastSeq);
      }, 250);
    });
  }

  close(): void {
    this.closed = true;
    this.ws?.close();
  }
}

/** What a fault world is made of. */
export interface FaultWorldOptions {
  /** keep the stores in Redis (else the gateway's embedded files in DATA_DIR) */
  redis: boolean;
  wallets: number;
  /** the gateway's env on top of the world's */
  env?: Record<string, string>;
  /** the chain's env on top of the world's (e.g. a fault profile, CHAIN_FAULTS) */
  chainEnv?: Record<string, string>;
}

/** The running world. */
export class FaultWorld {
  readonly ticks: Tick[] = [];
  readonly placed = new Set<string>();
  wallets: string[] = [];
  client: ResumingClient | null = null;
  /** the bettors of `startBettors`, with every answer they got */
  bettors: BettingLoop | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private price = 150;

  private constructor(
    readonly dataDir: string,
    readonly nats: Managed & { url: string },
    readonly redis: (Managed & { url: string }) | null,
    readonly chain: Managed,
    readonly gateway: Managed,
    readonly base: string,
    readonly chainUrl: string,
    private nc: NatsConnection,
  ) {}

  static async start(o: FaultWorldOptions): Promise<FaultWorld> {
    const dataDir = tempDir('fault-world-');
    const nats = await managedNats();
    const redis = o.redis ? await managedRedis() : null;
    const chainPort = await freePort();
    const gwPort = await freePort();
    const chain = managedService('chain', { DATA_DIR: dataDir, CHAIN_PORT: String(chainPort), GW_EXPIRY_SECONDS: '3', ...o.chainEnv }, chainPort);
    await chain.start();
    const chainUrl = `http://127.0.0.1:${chainPort}`;
    const gateway = managedService(
      'gateway',
      {
        DATA_DIR: dataDir,
        GATEWAY_PORT: String(gwPort),
        NATS_URL: nats.url,
        SOLANA_RPC_URL: chainUrl,
        SMART_SETTLE_INTERVAL_MS: '200',
        GW_EXPIRY_SECONDS: '3',
        // most of these tests audit every bet account on chain after the faults: keep them all (a
        // test that turns reclaims on reads the reclaimed bets from a BetAccountWatch instead)
        GW_RECLAIM_BETS: 'off',
        // a restarted gateway keeps its node id, so it takes its own leader lease back at once
        GW_NODE_ID: 'gw-fault',
        ...(redis ? { REDIS_URL: redis.url } : {}),
        ...o.env,
      },
      gwPort,
    );
    await gateway.start();
    const world = new FaultWorld(
      dataDir,
      nats,
      redis,
      chain,
      gateway,
      `http://127.0.0.1:${gwPort}`,
      chainUrl,
      await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 }),
    );
    world.startTicker();
    // set-up is not under test: an outage answer (503, e.g. the chain slow to confirm on a loaded
    // machine) is retried after its Retry-After, as the API asks of a client
    // (on a chain with a fault profile an outage answer can last several seconds: up to a minute;
    // a faucet there can take longer than a test client's usual deadline, so set-up waits 30 s for
    // an answer and asks again when none came)
    const settingUp = async (method: string, path: string, body?: unknown) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const r = await request(world.base, method, path, body, 30_000);
        if ((r.status !== 503 && r.status !== 0) || Date.now() > deadline) return r;
        await sleep(1000 * Number(r.headers?.get('retry-after') ?? 1));
      }
    };
    for (let i = 0; i < o.wallets; i++) {
      const w = await settingUp('POST', '/api/wallet', {});
      const f = await settingUp('GET', `/api/faucet/${w.body.address}`);
      if (w.status !== 200 || f.status !== 200) throw new Error(`wallet setup failed: ${w.status} ${f.status}`);
      world.wallets.push(w.body.address);
    }
    return world;
  }

  /** A random walk with 8 fraction digits, one tick every 200 ms; every published tick is remembered. */
  private startTicker(): void {
    this.ticker = setInterval(() => {
      this.price *= Math.exp(0.0004 * (Math.random() - 0.5));
      const tick = { ts: Date.now(), price: this.price.toFixed(8) };
      this.ticks.push(tick);
      if (!this.nc.isClosed()) this.nc.publish('market.price.solusdt', JSON.stringify({ symbol: 'solusdt', ...tick }));
    }, 200);
  }

  /** Every wallet bets in a loop (a bet whenever it has none open) until `stopBettors`. */
  startBettors(): BettingLoop {
    this.bettors = new BettingLoop({ wallets: this.wallets, gateway: () => this.base, placed: this.placed });
    this.bettors.start();
    return this.bettors;
  }

  async stopBettors(): Promise<void> {
    await this.bettors?.stop();
  }

  watch(): ResumingClient {
    this.client = new ResumingClient(`${this.base.replace('http', 'ws')}/api/ws`);
    return this.client;
  }

  private view: RpcChain | null = null;

  /** A view of the chain for the test's own reads (one adapter, closed by `stop`; the relayer key only builds it). */
  chainView(): RpcChain {
    if (!this.view) {
      const relayer = loadRoleKey(this.dataDir, 'relayer');
      if (!relayer) throw new Error('no relayer key');
      this.view = new RpcChain({ url: this.chainUrl, keys: { relayer }, pollMs: 25, timeoutMs: 5_000 });
    }
    return this.view;
  }

  /** Every bet of the world's wallets on chain. */
  async betsOnChain(): Promise<BetAccount[]> {
    const chain = this.chainView();
    const all = await Promise.all(this.wallets.map((w) => chain.scanBetsOf(new PublicKey(w))));
    return all.flat();
  }

  /** Waits until no bet of the world is open on chain, or `timeoutMs` passed; returns the bets. */
  async settledOnChain(timeoutMs: number): Promise<BetAccount[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // right after the chain came back, the view's own subscriptions may still be reconnecting
      const bets = await this.betsOnChain().catch((err: unknown) => {
        if (err instanceof ChainUnavailable && Date.now() < deadline) return null;
        throw err;
      });
      if (bets && (bets.every((b) => b.status !== 0) || Date.now() > deadline)) return bets;
      await sleep(500);
    }
  }

  /** Whether `exitPrice` (x 1e8) is a tick published at most 30 s before the bet's expiry and not after it. */
  exitTickOf(bet: BetAccount): Tick | undefined {
    const t = Number(bet.expireTime) * 1000;
    return this.ticks.find((k) => k.ts <= t && t - k.ts <= 30_000 && BigInt(k.price.replace('.', '')) === bet.exitPrice);
  }

  /** Stops the world; with FAULT_LOG set, writes the gateway's log there first (to read a failed run). */
  async stopKeepingLog(): Promise<void> {
    if (process.env.FAULT_LOG) writeFileSync(process.env.FAULT_LOG, this.gateway.output());
    await this.stop();
  }

  async stop(): Promise<void> {
    await this.bettors?.stop();
    if (this.ticker) clearInterval(this.ticker);
    this.client?.close();
    this.view?.close();
    await this.nc.close().catch(() => undefined);
    await this.gateway.stop();
    await this.chain.stop();
    await this.nats.stop();
    await this.redis?.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

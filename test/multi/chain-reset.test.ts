/**
 * A stream belongs to one chain (docs/decisions.md#one-stream-per-chain), with real processes:
 * a local chain and a gateway on a NATS that keeps running while the chain is reset (its DATA_DIR
 * wiped, a fresh Redis), as a developer does every day. The new chain numbers its bets 1, 2, ...
 * again; every one of their `bet_open` events still reaches a socket, a client resuming with the
 * old epoch is told `recovered: false`, and the gateway warns naming GW_EVENT_STREAM and both
 * genesis hashes. A gateway restarted on the same chain keeps the stream and its epoch.
 */
import { rmSync } from 'node:fs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocalChainInfo } from '../../adapters/chain/local/data-dir.ts';
import { request, sleep } from '../support/fault-world.ts';
import { clusterGateway, startClusterChain } from '../support/gateway-cluster.ts';
import { managedNats, managedRedis, type Managed } from '../support/managed.ts';
import { freePort } from '../support/servers.ts';
import { collect, type Collector } from '../support/ws-collector.ts';
import { tempDir } from '../support/temp-dir.ts';

const BETS = 3;

/** One run of the chain: its data dir, Redis, chain process and gateway process. */
interface Run {
  dataDir: string;
  redis: Managed & { url: string };
  chain: Managed;
  gateway: Managed;
  base: string;
  ws: string;
  genesis: string;
}

describe('a chain reset under a running NATS', () => {
  let nats: Managed & { url: string };
  let nc: NatsConnection;
  let ticker: NodeJS.Timeout | undefined;
  const runs: Run[] = [];
  const sockets: Collector[] = [];

  /** Starts a chain on a fresh data dir and a gateway on a fresh Redis, both on the shared NATS. */
  async function startRun(): Promise<Run> {
    const dataDir = tempDir('chain-reset-');
    const redis = await managedRedis();
    const { chain, chainPort } = await startClusterChain(dataDir);
    const port = await freePort();
    const gateway = clusterGateway({ id: 'gw-1', port, dataDir, natsUrl: nats.url, redisUrl: redis.url, chainPort, env: { GW_EVENT_STREAM: 'gw.events' } });
    await gateway.start();
    const genesis = loadLocalChainInfo(dataDir)?.genesisHash;
    if (!genesis) throw new Error('the chain wrote no genesis hash');
    const run = { dataDir, redis, chain, gateway, base: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}/api/ws`, genesis };
    runs.push(run);
    return run;
  }

  async function stopRun(run: Run): Promise<void> {
    await run.gateway.stop();
    await run.chain.stop();
    await run.redis.stop();
    rmSync(run.dataDir, { recursive: true, force: true });
  }

  /** Places one Profile A bet from each of `BETS` fresh custodial wallets (once the gateway has a tick); their ids. */
  async function placeBets(run: Run): Promise<string[]> {
    for (let i = 0; i < 300 && (await request(run.base, 'GET', '/api/price')).status !== 200; i++) await sleep(100);
    const ids: string[] = [];
    for (let i = 0; i < BETS; i++) {
      const wallet = await request(run.base, 'POST', '/api/wallet', {});
      expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
      const funded = await request(run.base, 'GET', `/api/faucet/${wallet.body.address}`);
      expect(funded.status, JSON.stringify(funded.body)).toBe(200);
      const bet = await request(run.base, 'POST', '/api/bet', { address: wallet.body.address, side: i % 2 ? 'UP' : 'DOWN', amountUnits: '100000000' });
      expect(bet.status, JSON.stringify(bet.body)).toBe(200);
      ids.push(String(bet.body.id));
    }
    return ids;
  }

  const opensOf = (s: Collector, ids: string[]) => s.until((m) => ids.every((id) => m.some((e) => e.type === 'bet_open' && e.id === id)), 30_000);
  const epochOf = async (run: Run): Promise<string> => {
    const page = await request(run.base, 'GET', '/api/events?since=0&limit=1');
    expect(page.status).toBe(200);
    return page.body.epoch as string;
  };
  const watch = async (url: string) => {
    const s = await collect(url);
    sockets.push(s);
    return s;
  };

  beforeAll(async () => {
    nats = await managedNats();
    nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    let price = 150;
    ticker = setInterval(() => {
      price *= Math.exp(0.0004 * (Math.random() - 0.5));
      if (!nc.isClosed()) nc.publish('market.price.solusdt', JSON.stringify({ symbol: 'solusdt', price: price.toFixed(8), ts: Date.now() }));
    }, 200);
  });
  afterAll(async () => {
    if (ticker) clearInterval(ticker);
    for (const s of sockets) s.close();
    for (const run of runs) await stopRun(run).catch(() => undefined);
    await nc?.close().catch(() => undefined);
    await nats?.stop();
  });

  it('announces every bet of the new chain, tells old-epoch clients to reload, and a restart on the same chain keeps the epoch', async () => {
    // the first chain: its bets reach a socket
    const first = await startRun();
    const before = await watch(first.ws);
    const oldIds = await placeBets(first);
    await opensOf(before, oldIds);
    const oldEpoch = await epochOf(first);
    const oldSeq = Math.max(...before.messages.map((m) => m.seq as number));
    before.close();

    // reset: gateway and chain stopped, data dir and Redis gone; NATS keeps running
    await stopRun(first);
    runs.length = 0;
    const second = await startRun();
    expect(second.genesis).not.toBe(first.genesis);
    const after = await watch(second.ws);
    const newIds = await placeBets(second);
    expect(newIds.some((id) => oldIds.includes(id))).toBe(true); // the new chain reuses the old bet ids
    await opensOf(after, newIds);

    const warning = second.gateway
      .output()
      .split('\n')
      .find((l) => l.includes('GW_EVENT_STREAM=gw.events'));
    expect(warning, second.gateway.output().slice(-3000)).toBeDefined();
    expect(warning).toContain(first.genesis);
    expect(warning).toContain(second.genesis);
    expect(warning).toContain('"level":40');

    // a client resuming from the old chain's epoch is told to reload
    const newEpoch = await epochOf(second);
    expect(newEpoch).not.toBe(oldEpoch);
    const stale = await watch(`${second.ws}?since=${oldSeq}&epoch=${encodeURIComponent(oldEpoch)}`);
    await stale.until(() => stale.resumes.length > 0, 10_000);
    expect(stale.resumes[0]).toMatchObject({ type: 'resume', recovered: false, epoch: newEpoch });

    // a gateway restarted on the same chain keeps the stream: same epoch, resume recovered
    const lastSeen = Math.max(...after.messages.map((m) => m.seq as number));
    await second.gateway.terminate();
    await second.gateway.start();
    expect(await epochOf(second)).toBe(newEpoch);
    const resumed = await watch(`${second.ws}?since=${lastSeen}&epoch=${encodeURIComponent(newEpoch)}`);
    await resumed.until(() => resumed.resumes.length > 0, 10_000);
    expect(resumed.resumes[0]).toMatchObject({ type: 'resume', recovered: true, epoch: newEpoch });
    expect(
      second.gateway
        .output()
        .split('\n')
        .filter((l) => l.includes('GW_EVENT_STREAM=gw.events')),
    ).toHaveLength(1);
    // and bets keep reaching sockets after the restart
    await opensOf(resumed, await placeBets(second));
  });
});

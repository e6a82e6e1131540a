/**
 * POST /api/bet sustained (goals: >= 600 bets/s, p99 <= 150 ms, <= 2 RPC round trips, <= 0.1
 * PubSub requests and <= 1.2 ms of gateway CPU per bet; >= 200 bets/s with 50 ms of RPC latency). The gateway runs as
 * its own process on `npm run chain` and Redis. BENCH_BETS (2000) custodial wallets are made and
 * funded, then bet in rounds, BENCH_IN_FLIGHT (64) requests in flight: a warm-up round (not
 * measured), a measured round once the warm-up's bets are settled (the window is 20 s, so nothing
 * settles while a round is measured), and a round with the proxy in front of the chain adding
 * 25 ms each way (50 ms per round trip) for BENCH_LATENCY_BETS (1000) of the wallets.
 * Baseline in the same run: the chain's own place_bet capacity (pre-signed, batches of 50). Then
 * BENCH_INTENT_BETS (1000) players with keys of their own approve the relayer as delegate and bet
 * with a signed intent each (docs/gateway-api.md#bet-intents): a warm-up round and a measured one,
 * beside the custodial rate of the same run.
 * Then the burst rows (`support/burst-rows.ts`; BENCH_BURST=0 skips them).
 */
import WebSocket from 'ws';
import { cpuMs, percentile, pool, report, until, type Row } from './support/measure.ts';
import { JsonClient } from '../test/support/json-client.ts';
import { delta, scrape } from './support/prom.ts';
import { burstRows } from './support/burst-rows.ts';
import { rawPlaceCapacity } from './support/raw-chain.ts';
import { intentPlayers } from './support/intent-players.ts';
import { fundedWallets as wallets } from '../test/support/funded-wallets.ts';
import { measuredGatewayArgs, startBenchRedis, startChain, startGatewayProcess, type ChainUnderTest, type GatewayUnderTest } from './support/stack.ts';

const BETS = Number(process.env.BENCH_BETS ?? 2000);
const LATENCY_BETS = Math.min(BETS, Number(process.env.BENCH_LATENCY_BETS ?? 1000));
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const RAW = Number(process.env.BENCH_RAW_TX ?? 1000);
/** players with their own keys for the intent row */
const INTENT_BETS = Math.min(BETS, Number(process.env.BENCH_INTENT_BETS ?? 1000));

/** A custodial wallet's bet: the gateway signs with its key. */
const custodialBet = (address: string, i: number): object => ({ address, side: i % 2 ? 'DOWN' : 'UP', amountUnits: '100000000' });

/**
 * Every wallet bets once (`body` says what it sends); returns the bet ids, bets/s, latencies,
 * gateway and chain CPU ms per bet and RPC calls per bet.
 */
async function round(
  client: JsonClient,
  chain: ChainUnderTest,
  gateway: GatewayUnderTest,
  addresses: string[],
  body: (address: string, i: number) => object = custodialBet,
) {
  const latencies: number[] = [];
  const ids: string[] = [];
  chain.rpcProxy.reset();
  const before = await scrape(gateway.base);
  const cpu0 = cpuMs(gateway.pid);
  const chainCpu0 = cpuMs(chain.process.pid as number);
  const seconds = await pool(addresses, IN_FLIGHT, async (address, i) => {
    const t = performance.now();
    const r = await client.call('POST', '/api/bet', body(address, i));
    latencies.push(performance.now() - t);
    if (r.status !== 200 || typeof r.body?.id !== 'string') throw new Error(`bet refused: ${JSON.stringify(r)}`);
    ids.push(r.body.id);
  });
  const cpu = cpuMs(gateway.pid) - cpu0;
  const chainCpu = cpuMs(chain.process.pid as number) - chainCpu0;
  const rpc = chain.rpcProxy.calls();
  const pubsub = delta(before, await scrape(gateway.base), 'gateway_chain_pubsub_requests_total');
  return {
    ids,
    perSecond: addresses.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuPerBet: cpu / addresses.length,
    chainCpuPerBet: chainCpu / addresses.length,
    rpcPerBet: rpc / addresses.length,
    pubsubPerBet: pubsub / addresses.length,
  };
}

/** Ids of the bets settled so far, from the gateway's event stream. */
function watchClosed(gateway: GatewayUnderTest): { closed: Set<string>; close(): void } {
  const closed = new Set<string>();
  const ws = new WebSocket(`${gateway.base.replace('http', 'ws')}/api/ws`);
  ws.on('message', (m) => {
    const e = JSON.parse(String(m)) as { type: string; id?: string };
    if (e.type === 'bet_closed' && e.id) closed.add(e.id);
  });
  return { closed, close: () => ws.close() };
}

const redis = await startBenchRedis();
const chain = await startChain({ GW_EXPIRY_SECONDS: '20' });
let gateway = await startGatewayProcess(chain, redis);
let client = new JsonClient(gateway.base, IN_FLIGHT);
let raw = Number.NaN;
try {
  await until('a price', async () => (await client.call('GET', '/api/price')).status === 200, 30_000);
  const all = await wallets(client, BETS);
  raw = await rawPlaceCapacity(chain.directUrl, chain.dataDir, RAW);
  // the measured gateway is a fresh process (profiling flags apply to the bets alone); the wallets are in Redis
  if (measuredGatewayArgs().length > 0) {
    client.close();
    await gateway.stop();
    gateway = await startGatewayProcess(chain, redis, {}, measuredGatewayArgs());
    client = new JsonClient(gateway.base, IN_FLIGHT);
    await until('a price', async () => (await client.call('GET', '/api/price')).status === 200, 30_000);
  }
  const events = watchClosed(gateway);
  const settled = (ids: string[]) => until(`${ids.length} bets settled`, () => ids.every((id) => events.closed.has(id)), 90_000, 200);

  await settled((await round(client, chain, gateway, all)).ids); // warm-up
  const local = await round(client, chain, gateway, all);
  await settled(local.ids);
  chain.rpcProxy.setDelay(25);
  chain.wsProxy.setDelay(25);
  const remote = await round(client, chain, gateway, all.slice(0, LATENCY_BETS));
  chain.rpcProxy.setDelay(0);
  chain.wsProxy.setDelay(0);
  // players with their own keys: a delegated stake and a signed intent per bet (docs/gateway-api.md#bet-intents)
  const players = await intentPlayers(client, chain.directUrl, chain.dataDir, INTENT_BETS);
  const byAddress = new Map(players.map((p) => [p.address, p]));
  // each round's intents are signed before it starts, as wallets sign before they send: the players' cost, not the gateway's
  const signedRound = () => {
    const bodies = new Map([...byAddress].map(([address, p], i) => [address, p.bet(i % 2 ? 'DOWN' : 'UP', 100_000_000n)]));
    return (address: string) => bodies.get(address)!;
  };
  await settled((await round(client, chain, gateway, [...byAddress.keys()], signedRound())).ids); // warm-up
  const signedByPlayers = await round(client, chain, gateway, [...byAddress.keys()], signedRound());
  events.close();
  const rows: Row[] = [
    {
      measure: `POST /api/bet, ${IN_FLIGHT} in flight`,
      value: local.perSecond,
      unit: 'bets/s',
      baseline: { name: 'chain pre-signed place_bet', value: raw },
      goal: '>= 600 bets/s, p99 <= 150 ms, <= 2 RPC, <= 0.1 PubSub requests and <= 1.2 ms gateway CPU per bet',
      detail: `p50 ${local.p50.toFixed(0)} ms, p99 ${local.p99.toFixed(0)} ms, ${local.rpcPerBet.toFixed(2)} RPC calls, ${local.pubsubPerBet.toFixed(2)} PubSub requests and ${local.cpuPerBet.toFixed(2)} ms gateway CPU per bet (chain ${local.chainCpuPerBet.toFixed(2)} ms)`,
    },
    {
      measure: `POST /api/bet, ${IN_FLIGHT} in flight, 50 ms RPC round trip`,
      value: remote.perSecond,
      unit: 'bets/s',
      baseline: { name: 'chain pre-signed place_bet', value: raw },
      goal: '>= 200 bets/s',
      detail: `p50 ${remote.p50.toFixed(0)} ms, p99 ${remote.p99.toFixed(0)} ms, ${remote.rpcPerBet.toFixed(2)} RPC calls and ${remote.cpuPerBet.toFixed(2)} ms gateway CPU per bet`,
    },
    {
      measure: `POST /api/bet with a signed intent (delegated stake), ${IN_FLIGHT} in flight, ${INTENT_BETS} players`,
      value: signedByPlayers.perSecond,
      unit: 'bets/s',
      baseline: { name: 'custodial bets, same run', value: local.perSecond },
      goal: '>= 0.8x of custodial bets',
      detail: `p50 ${signedByPlayers.p50.toFixed(0)} ms, p99 ${signedByPlayers.p99.toFixed(0)} ms, ${signedByPlayers.rpcPerBet.toFixed(2)} RPC calls and ${signedByPlayers.cpuPerBet.toFixed(2)} ms gateway CPU per bet (chain ${signedByPlayers.chainCpuPerBet.toFixed(2)} ms)`,
    },
  ];
  report(`gateway bets (${BETS} wallets, each betting once per round; gateway process on the chain process and Redis)`, rows);
} finally {
  client.close();
  await gateway.stop();
  await chain.stop();
  await redis.stop();
}
// bursts on stacks of their own, after the sustained rounds' processes are gone
if (process.env.BENCH_BURST !== '0') report('bet bursts (every answer checked against the chain)', await burstRows(raw));

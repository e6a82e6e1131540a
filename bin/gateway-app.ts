/**
 * The assembled gateway (docs/architecture.md#layers: the process assembly sits above the server):
 * stores, chain adapter, price ingestion, event stream, key store, bet actors, the settlement
 * scheduler and health checks behind the uWS shell with the routes of docs/gateway-api.md.
 * Dependencies that are not up yet are waited for (logged), so the parts may start in any order.
 *
 * @example
 *   const gw = await startGateway(readGatewayConfig());
 *   // ... later
 *   await gw.stop();
 */
import type { LocalChain } from '../adapters/chain/local/start.ts';
import type { BetAccount } from '../adapters/chain/port.ts';
import { priceFeedFromEnv } from '../runtime/feed-from-env.ts';
import { loadPriceSigner } from '../adapters/feed/price-signer.ts';
import { tickProofs } from '../runtime/gateway/prices/tick-proofs.ts';
import type { PriceFeed } from '../adapters/feed/port.ts';
import { startHistoryPruning } from '../runtime/gateway/history/pruning.ts';
import { connectChain } from './gateway-chain.ts';
import type { GatewayConfig } from './gateway-env.ts';
import { startSettlement } from './gateway-settlement.ts';
import type { FixedBettorDeps } from '../runtime/gateway/profile-b/fixed-bettor.ts';
import { resolveFixedBettor } from '../runtime/gateway/profile-b/bettor-address.ts';
import { startHealthChecks } from '../runtime/gateway/health.ts';
import { createGatewayMetrics } from '../runtime/gateway/metrics.ts';
import type { BetDeps } from '../runtime/gateway/bets/place-bet.ts';
import { PlacementAdmission } from '../runtime/gateway/bets/admission.ts';
import { startPriceIngestion, type PriceService } from '../runtime/gateway/prices/ingestion.ts';
import { decideEntryPrice } from '../runtime/gateway/prices/rules.ts';
import { betInputOf } from '../runtime/gateway/settlement/settler.ts';
import { listenForRetryRequests } from '../runtime/gateway/settlement/retry-requests.ts';
import { OutboxRelay } from '../runtime/gateway/events/outbox-relay.ts';
import { openSharedStream } from '../runtime/gateway/events/shared-stream.ts';
import { openStores } from './gateway-stores.ts';
import type { GatewayEvent } from '../runtime/gateway/events/schemas.ts';
import { DependencyLinks } from '../runtime/dependency-links.ts';
import { waitFor } from '../runtime/wait-for.ts';
import { componentLog, log as rootLog, type Logger } from '../kernel/log.ts';
import { openFileLimit } from '../kernel/process-limits.ts';
import { registerGatewayRoutes } from '../server/gateway/routes.ts';
import { createGatewayShell } from '../server/gateway/shell.ts';
import { ASSET_PREFIX, servicePage } from '../server/web/pages.ts';
import { mountSite } from '../server/web/static.ts';

/** A running gateway. */
export interface RunningGateway {
  port: number;
  /** JSON-RPC url of the chain it talks to */
  chainUrl: string;
  /** stops accepting requests, stops the scheduler and actors (snapshots stay), closes stores */
  stop(): Promise<void>;
}

/** Overrides for tests and embedding. */
export interface GatewayOptions {
  log?: Logger;
  /** price source (default: from NATS_URL, else synthetic) */
  feed?: PriceFeed;
  /** listen address (default: HOST, else 127.0.0.1) */
  host?: string;
  /** a local chain already running in this process (npm start): called in-process, not over HTTP */
  localChain?: LocalChain;
}

/** Sockets a process may hold under an open-file limit: what the rest of the gateway holds (stores, NATS, the chain, HTTP clients, listening sockets) fits in the 512 left. */
const socketsWithin = (files: number | null): number => (files === null ? Number.POSITIVE_INFINITY : Math.max(64, files - 512));

/** How long POST /bet waits for the new bet's first commit before answering anyway (the bet is on chain). */
const OPEN_COMMIT_WAIT_MS = 2_000;

/** Starts the gateway; resolves once it listens. */
export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const processLog = options.log ?? rootLog;
  const log = componentLog(processLog, 'gateway', { node: config.GW_NODE_ID });
  const started = performance.now();
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c().catch((err: unknown) => log.error({ err }, 'shutdown step failed'));
    cleanups.length = 0;
  };
  try {
    const metrics = createGatewayMetrics();
    // every Redis and NATS connection of the gateway, and the chain probe, for gateway_dependency_up
    const dependencies = new DependencyLinks();
    const stores = await openStores(config, log, dependencies);
    cleanups.push(() => stores.close());
    // the signed ticks placements and closes carry once the contract requires them (docs/decisions.md#signed-prices),
    // from the price history and the ingestion started below
    let priceService: PriceService | undefined;
    const proofs = tickProofs(stores.history, () => priceService?.currentTick());
    const chainConn = await connectChain(config, log, {
      processLog,
      sameProcess: options.localChain ?? null,
      observeRpc: metrics.rpc,
      intents: stores.intents,
      observePubSub: metrics.pubsubRequest,
      tickProofs: proofs,
    });
    cleanups.push(() => chainConn.stop());
    const chain = chainConn.chain;

    // with NATS the broadcast events live in a JetStream stream shared by every gateway; the
    // store's own log stays the outbox of bet commits, relayed to the stream by the leader; the
    // stream belongs to the chain connected above (another chain's is recreated, a new epoch)
    const shared = await openSharedStream(
      config.NATS_URL,
      log,
      config.GW_EVENT_STREAM,
      { chain, outbox: stores.eventLog },
      config.GW_EVENT_REPLICAS,
      config.NATS_URL ? dependencies.link('nats') : undefined,
    );
    if (shared) cleanups.push(() => shared.close());
    const shell = createGatewayShell<GatewayEvent>({
      eventLog: shared?.log ?? stores.eventLog,
      logger: log,
      answered: metrics.httpAnswered,
      listenBacklog: config.GW_LISTEN_BACKLOG,
      stream: {
        resumeRingEvents: config.GW_RESUME_RING_EVENTS,
        maxResuming: config.GW_MAX_RESUMING,
        fanoutShards: config.GW_FANOUT_SHARDS,
        maxSockets: config.GW_MAX_SOCKETS ?? socketsWithin(openFileLimit()),
        observer: metrics.resumes,
      },
    });
    await shell.events.start();
    cleanups.push(() => shell.close());
    if (shared) {
      const following = await shared.log.follow(shell.events.lastPublishedSeq + 1, (event) => shell.events.deliver([event]));
      cleanups.push(() => following.stop());
    }
    const relay = shared ? new OutboxRelay<GatewayEvent>({ outbox: stores.eventLog, stream: shared.log, dedupIdOf: shared.dedupIdOf, log }) : null;

    const priceSource = config.NATS_URL ? 'nats:market.price.solusdt' : options.feed ? 'feed' : 'synthetic';
    const settlement = await startSettlement({
      config,
      stores,
      chain,
      shared,
      relay,
      deliver: (events) => shell.events.deliver(events),
      metrics,
      priceSource,
      log,
    });
    cleanups.push(() => settlement.stop());
    const { leadership, role, liveBets, policy } = settlement;

    // the embedded synthetic feed signs its ticks with DATA_DIR's price signer (docs/decisions.md#signed-prices)
    const signer = config.NATS_URL
      ? undefined
      : loadPriceSigner({ dataDir: config.DATA_DIR, ...(config.PRICE_SIGNER_KEY ? { secret: config.PRICE_SIGNER_KEY } : {}) });
    const feed = options.feed ?? priceFeedFromEnv({ NATS_URL: config.NATS_URL }, processLog, dependencies, signer);
    // which prices the contract takes is read from its price rules; unsigned ticks are refused once it requires signed ones
    let signedRequired = (await chain.signedPricesRequired?.().catch(() => false)) ?? false;
    const rulesWatch = setInterval(() => {
      chain.signedPricesRequired?.().then(
        (required) => {
          if (required !== signedRequired)
            log.info({ signedPrices: required }, required ? 'the contract requires signed prices' : 'the contract takes relayer-attested prices');
          signedRequired = required;
        },
        () => undefined,
      );
    }, 2_000);
    cleanups.push(async () => clearInterval(rulesWatch));
    log.info({ signedPrices: signedRequired, priceSigner: signer?.publicKey }, 'price rules of the contract');
    const prices = await startPriceIngestion({
      feed,
      history: stores.history,
      events: shell.events,
      logger: log,
      stored: (tick) => role.priceStored(tick.ts),
      refused: (reason) => metrics.priceTickRefused(reason),
      requireSigned: () => signedRequired,
      start: () => waitFor('the price feed', () => feed.start(), log, config.NATS_URL ? `NATS at ${config.NATS_URL}` : undefined),
    });
    priceService = prices;
    cleanups.push(() => prices.stop());
    shell.events.setSnapshotSource(() => prices.snapshotEvent());

    const pruning = startHistoryPruning({ store: stores.betHistory, retentionDays: config.GW_HISTORY_DAYS, log });
    cleanups.push(async () => pruning.stop());

    const liveActors = { seriesIds: () => liveBets().seriesIds(), summaryOf: (id: string) => liveBets().summaryOf(id), stats: () => liveBets().stats() };
    const retries = await listenForRetryRequests({
      redis: stores.redis,
      prefix: stores.prefix,
      dataDir: config.DATA_DIR,
      retry: (id) => liveBets().retryNow(id),
      log,
    });
    cleanups.push(() => retries.stop());
    metrics.observeLive({
      actors: liveActors,
      sockets: () => shell.events.connections,
      resuming: () => shell.events.resuming,
      lastTickMs: () => prices.current()?.ts,
      landing: () => chain.landing(),
      leader: () => leadership.isLeader(),
      relay,
      dependencies,
    });

    const betDeps: BetDeps = {
      chain,
      admission: new PlacementAdmission(config.GW_MAX_PLACING, () => metrics.betShed()),
      keyFor: async (address) => (await stores.keys.get(address)) ?? null,
      // the latest tick is held in memory by the ingestion (entry price = the latest tick: docs/decisions.md#entry-and-exit-prices)
      entryPrice: async () => {
        const d = decideEntryPrice(prices.current(), Date.now());
        return d.kind === 'price' ? d.value : null;
      },
      // bet_open when POST /bet succeeds (docs/gateway-api.md#events); the actor announces it once its first commit lands
      opened: async (bet: BetAccount, signature: string) => {
        const id = bet.id.toString();
        const bets = liveBets();
        if (!bets.has(id)) bets.open({ ...betInputOf(bet, policy), placeTx: signature });
        metrics.betPlaced();
        if (!(await bets.committed(id, OPEN_COMMIT_WAIT_MS)))
          log.warn({ betId: id }, 'bet placed on chain; its snapshot is not committed yet (store down?): it is retried, and the bet settles all the same');
        log.info({ betId: id, bettor: bet.bettor, side: bet.side, amount: bet.amount.toString(), entryPrice: bet.entryPrice.toString() }, 'bet placed');
      },
    };

    let fixed: FixedBettorDeps | null = null;
    if (config.GW_PROFILE === 'B') {
      const bettor = await resolveFixedBettor(config.GW_FIXED_BETTOR, config.DATA_DIR, stores.keys, log);
      fixed = { ...betDeps, bettor, betPercent: config.GW_BET_PERCENT, walletKnown: () => stores.keys.has(bettor.toBase58()), now: Date.now };
    }

    const health = startHealthChecks({
      node: config.GW_NODE_ID,
      chain: () => chain.ping(),
      redis: stores.redis,
      lastTickMs: () => prices.current()?.ts,
      leader: () => leadership.isLeader(),
    });
    cleanups.push(async () => health.stop());
    dependencies.probe('chain', () => health.report().checks.chain === 'UP');

    const history = { store: stores.betHistory, retentionDays: config.GW_HISTORY_DAYS, now: Date.now };
    registerGatewayRoutes(shell.router, { config, chain, keys: stores.keys, prices, bets: betDeps, fixed, health, history, metrics: metrics.registry, log });
    // the live page at `/` (assets under /ui): what the page needs to know of this gateway
    const pageConfig = { service: 'gateway', profile: config.GW_PROFILE, mode: config.SMART_MODE, settleIntervalMs: config.SMART_SETTLE_INTERVAL_MS };
    mountSite(shell.app, servicePage('gateway', { [`${ASSET_PREFIX}/config.json`]: () => pageConfig }), ASSET_PREFIX);

    const port = await shell.listen(config.GATEWAY_PORT, options.host ?? config.HOST);
    log.info(
      {
        port,
        host: options.host ?? config.HOST,
        profile: config.GW_PROFILE,
        mode: config.SMART_MODE,
        stores: stores.kind,
        chain: chainConn.url,
        embeddedChain: chainConn.embedded !== null,
        leader: leadership.isLeader(),
        fence: leadership.fence(),
        liveBetSeries: role.actors()?.seriesIds().length ?? 0,
        settleIntervalMs: config.SMART_SETTLE_INTERVAL_MS,
        readyMs: Math.round(performance.now() - started),
      },
      `gateway listening on :${port} (profile ${config.GW_PROFILE})`,
    );
    return { port, chainUrl: chainConn.url, stop: cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

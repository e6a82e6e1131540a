/**
 * The assembled gateway (design: "Shape", "Run contract"): chain adapter, stores, price
 * ingestion, event stream, key store, bet actors and the settlement scheduler, behind the uWS
 * shell with the spec's routes.
 *
 * @example
 *   const gw = await startGateway(readGatewayConfig());
 *   // ... later
 *   await gw.stop();
 */
import type { BetAccount } from '../../adapters/chain/port.ts';
import type { PriceFeed } from '../../adapters/feed/port.ts';
import { priceFeedFromEnv } from '../../adapters/feed/from-env.ts';
import { registerGatewayRoutes } from '../../server/gateway/routes.ts';
import { createGatewayShell } from '../../server/gateway/shell.ts';
import type { GatewayEvent } from '../../server/gateway/wire.ts';
import { componentLog, log as rootLog, type Logger } from '../log.ts';
import { BetActors } from './bet-actors.ts';
import { connectChain } from './chain-setup.ts';
import type { GatewayConfig } from './config.ts';
import type { FixedBettorDeps } from './fixed-bettor.ts';
import { resolveFixedBettor } from './fixed-bettor-address.ts';
import type { BetDeps } from './place-bet.ts';
import { entryPriceNow, startPriceIngestion } from './prices.ts';
import { settlementEffects } from './settlement-effects.ts';
import { betInputOf, Settler, type ReplayPolicy } from './settler.ts';
import { openStores } from './stores.ts';

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
  /** listen address [0.0.0.0] */
  host?: string;
}

/** Starts the gateway; resolves once it listens. */
export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const log = componentLog(options.log ?? rootLog, 'gateway');
  const started = performance.now();
  const stores = await openStores(config, log);
  const cleanups: Array<() => Promise<void>> = [() => stores.close()];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c().catch((err: unknown) => log.error({ err }, 'shutdown step failed'));
  };
  try {
    const chainConn = await connectChain(config, log);
    cleanups.push(() => chainConn.stop());
    const chain = chainConn.chain;

    const shell = createGatewayShell<GatewayEvent>({ eventLog: stores.eventLog, logger: log });
    await shell.events.start();
    cleanups.push(async () => shell.close());

    const prices = await startPriceIngestion({
      feed: options.feed ?? priceFeedFromEnv({ NATS_URL: config.NATS_URL }, options.log ?? rootLog),
      history: stores.history,
      events: shell.events,
      logger: log,
    });
    cleanups.push(() => prices.stop());
    shell.events.setSnapshotSource(() => prices.snapshotEvent());

    const keyFor = async (address: string) => stores.keys.get(address);
    const bets = await BetActors.boot({
      store: stores.snapshots,
      effects: settlementEffects({ chain, history: stores.history, keyFor, now: Date.now }),
      publish: (event) => {
        if (event.type === 'bet_closed') log.info({ betId: event.id, bettor: event.bettor, exitPrice: event.exitPrice, status: event.statusName }, `bet ${event.id} settled: ${event.statusName}`);
        if (event.type === 'bet_replay') log.info({ betId: event.id, prevId: event.prevId, replayCount: event.replayCount }, `tie of bet ${event.prevId} replayed as bet ${event.id}`);
        shell.events.broadcast(event).catch((err: unknown) => log.error({ err, event }, 'bet event not broadcast'));
      },
      log,
    });
    cleanups.push(() => bets.stop());

    const policy: ReplayPolicy = { replayTies: config.GW_PROFILE === 'B', maxReplays: config.GW_MAX_REPLAYS };
    const betDeps: BetDeps = {
      chain,
      keyFor: async (address) => (await keyFor(address)) ?? null,
      entryPrice: async () => {
        const d = await entryPriceNow(stores.history, Date.now());
        return d.kind === 'price' ? d.value : null;
      },
      // spec section 6: bet_open when POST /bet succeeds; the actor announces it once its snapshot is saved
      opened: async (bet: BetAccount) => {
        const id = bet.id.toString();
        if (!bets.chainIds().includes(id)) bets.open(betInputOf(bet, policy));
        await bets.settled();
        log.info({ betId: id, bettor: bet.bettor, side: bet.side, amount: bet.amount.toString(), entryPrice: bet.entryPrice.toString() }, 'bet placed');
      },
    };

    let fixed: FixedBettorDeps | null = null;
    if (config.GW_PROFILE === 'B') {
      const bettor = await resolveFixedBettor(config.GW_FIXED_BETTOR, config.DATA_DIR, stores.keys, log);
      fixed = { ...betDeps, bettor, betPercent: config.GW_BET_PERCENT, walletKnown: () => stores.keys.has(bettor.toBase58()), now: Date.now };
    }

    registerGatewayRoutes(shell.router, { config, chain, keys: stores.keys, prices, bets: betDeps, fixed, log });

    const settler = new Settler({ chain, bets, snapshots: stores.snapshots, policy, log });
    settler.start(config.SMART_SETTLE_INTERVAL_MS);
    cleanups.push(() => settler.stop());

    const port = await shell.listen(config.GATEWAY_PORT, options.host);
    log.info(
      {
        port,
        profile: config.GW_PROFILE,
        mode: config.SMART_MODE,
        stores: stores.kind,
        chain: chainConn.url,
        embeddedChain: chainConn.embedded !== null,
        liveBetChains: bets.chainIds().length,
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

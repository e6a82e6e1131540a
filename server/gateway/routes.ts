/**
 * The gateway's HTTP routes (docs/gateway-api.md#routes, errors: docs/gateway-api.md#errors),
 * registered into the path-rule router. Handlers only translate HTTP to runtime calls: parse with
 * the wire schemas, call the runtime, map refusals to statuses (`answers.ts`).
 */
import type { PublicKey } from '@solana/web3.js';
import { ChainRejected, type ChainPort } from '../../adapters/chain/port.ts';
import { publicKeyOf } from '../../adapters/chain/account-layout.ts';
import { refusesLamports } from '../../adapters/chain/tx-outcome.ts';
import { FAUCET_LAMPORTS, FAUCET_TOKEN_UNITS } from '../../adapters/chain/faucet.ts';
import type { KeyStore } from '../../adapters/store/keystore/port.ts';
import { fixedBettorState, placeFixedBet, type FixedBettorDeps } from '../../runtime/gateway/profile-b/fixed-bettor.ts';
import type { Health } from '../../runtime/gateway/health.ts';
import { placeBetA, type BetDeps } from '../../runtime/gateway/bets/place-bet.ts';
import type { PriceService } from '../../runtime/gateway/prices/ingestion.ts';
import { MESSAGES } from '../../runtime/gateway/refusals.ts';
import { balanceView } from '../../runtime/gateway/views/units.ts';
import { contractStateView } from '../../runtime/gateway/views/state.ts';
import type { Logger } from '../../kernel/log.ts';
import { HttpError, retryAfter } from '../http/reply.ts';
import {
  balanceRoute,
  betRouteA,
  betRouteB,
  faucetRoute,
  gatewayOpenApi,
  healthRoute,
  readyRoute,
  stateRouteA,
  stateRouteB,
  walletRoute,
  wsRoute,
} from '../openapi/gateway.ts';
import { RawJson } from '../http/reply.ts';
import { openApiRoute } from '../openapi/document.ts';
import type { Registry } from 'prom-client';
import { registerActionRoutes } from './action-routes.ts';
import { registerAdminRoute } from './admin-route.ts';
import { heldReads } from './held-reads.ts';
import { registerHistoryRoutes, type HistoryApi } from './history-routes.ts';
import { answering, orRefuse } from './answers.ts';
import { registerIntentRoute } from './intent-route.ts';
import { registerMetricsRoute } from './metrics-route.ts';
import { registerPriceRoute } from './price-route.ts';
import { respond, type GatewayRouter } from './router.ts';
import { parseBetBodyA, parseBetBodyB } from './wire.ts';

/** The settings the routes read (the gateway's env, docs/operations.md#processes). */
export interface RoutesConfig {
  GW_PROFILE: 'A' | 'B';
  SMART_MODE: 'test' | 'prod';
  GW_ADMIN_TOKEN?: string | undefined;
}

/** What the routes call. */
export interface GatewayApi {
  config: RoutesConfig;
  chain: ChainPort;
  keys: KeyStore;
  prices: Pick<PriceService, 'current'>;
  bets: BetDeps;
  /** Profile B only */
  fixed: FixedBettorDeps | null;
  health: Health;
  history: HistoryApi;
  /** the gateway's metrics registry, scraped at `GET /metrics` */
  metrics: Registry;
  log: Logger;
}

/** A path address as a PublicKey, or 400 for an invalid address (docs/gateway-api.md#balance). */
function addressParam(address: string | undefined): PublicKey {
  const key = address === undefined ? null : publicKeyOf(address);
  if (!key) throw new HttpError(400, { error: 'address must be a base58 public key' });
  return key;
}

/** 403 outside test mode: faucet and wallet are test mode only (docs/gateway-api.md#wallet, docs/gateway-api.md#faucet). */
function requireTestMode(config: RoutesConfig, what: string): void {
  if (config.SMART_MODE !== 'test') throw new HttpError(403, { error: `${what} is available in test mode only (SMART_MODE=test)` });
}

/** Registers every gateway route on `router`. */
export function registerGatewayRoutes(router: GatewayRouter, api: GatewayApi): void {
  const { config, chain, keys, log } = api;

  const held = heldReads(chain);
  const fixed = api.fixed;
  // Profile B's state is the fixed bettor's; Profile A's comes from memory when the mirror holds it
  if (fixed)
    router.get(stateRouteB, () =>
      answering(async () => {
        const state = orRefuse(await fixedBettorState(fixed));
        if (!state) throw new HttpError(409, { error: MESSAGES.notInitialized });
        return state;
      }),
    );
  else
    router.get(stateRouteA, () => {
      const body = held.state();
      if (body === null) throw new HttpError(409, { error: MESSAGES.notInitialized });
      return (
        body ??
        answering(async () => {
          const c = await chain.readConfig();
          if (!c) throw new HttpError(409, { error: MESSAGES.notInitialized });
          return contractStateView(c, await chain.vaultBalance());
        })
      );
    });

  // Profile A demands `Content-Type: application/json` and `{}` (docs/gateway-api.md#path-rules); Profile B takes an empty body.
  router.post(
    walletRoute(config.GW_PROFILE),
    async () => {
      requireTestMode(config, 'POST /wallet');
      const pair = await keys.create();
      log.info({ address: pair.publicKey.toBase58() }, 'custodial wallet created');
      return { address: pair.publicKey.toBase58() };
    },
    { requireJsonBody: config.GW_PROFILE === 'A' },
  );

  router.get(faucetRoute, ({ params }) =>
    answering(async () => {
      requireTestMode(config, 'the faucet');
      const address = addressParam(params.address);
      const cluster = await chain.clusterKind();
      if (cluster !== 'local') throw new HttpError(403, { error: `the faucet works only on the local test chain (this chain's genesis hash is ${cluster})` });
      await chain.faucet(address).catch((err: unknown) => {
        // the chain refuses to credit programs and sysvars: the address was the problem, not the chain
        if (err instanceof ChainRejected && refusesLamports(err.txError))
          throw new HttpError(
            400,
            { error: `address ${address.toBase58()} is a program or reserved account and cannot receive a grant; use a wallet address` },
            { cause: err },
          );
        throw err;
      });
      log.info({ address: address.toBase58() }, 'faucet grant');
      // the grant itself (docs/gateway-api.md#faucet: sol 5, tokenUnits 10000000000)
      return { address: address.toBase58(), ...balanceView(FAUCET_LAMPORTS, FAUCET_TOKEN_UNITS) };
    }),
  );

  router.get(balanceRoute, ({ params }) => {
    const name = params.address ?? '';
    // a body cached for this name was made for a valid address: no need to parse it again
    const body = held.balance(name, () => addressParam(name));
    if (body) return body;
    const address = addressParam(name);
    return answering(async () => {
      const b = await chain.balances(address);
      return balanceView(b.lamports, b.tokenUnits);
    });
  });

  // 500 when the chain node is unreachable (docs/gateway-api.md#errors; with Retry-After, like every outage answer)
  if (fixed) router.post(betRouteB, ({ body }) => answering(async () => orRefuse(await placeFixedBet(fixed, parseBetBodyB(body).side), 500), 500));
  else router.post(betRouteA, ({ body }) => answering(async () => orRefuse(await placeBetA(api.bets, parseBetBodyA(body)), 500), 500));

  // liveness with the dependencies it needs (chain, Redis): exactly {status, node, leader} when UP;
  // readiness (also a fresh price) names what is missing
  router.get(healthRoute, () => {
    const { status, node, leader, checks } = api.health.report();
    if (status === 'UP') return { status, node, leader };
    const down = Object.entries(checks)
      .filter(([name, state]) => state === 'DOWN' && name !== 'price')
      .map(([name]) => name);
    return respond(503, { status, node, leader, error: `down: ${down.join(', ')} unreachable` }, [retryAfter()]);
  });
  router.get(readyRoute, () => {
    const missing = api.health.missing();
    if (missing.length === 0) return { ready: true as const, node: api.health.report().node };
    return respond(503, { error: `not ready: ${missing.join('; ')}`, missing }, [retryAfter()]);
  });

  if (!api.fixed) {
    registerIntentRoute(router, chain);
    registerActionRoutes(router, chain, api.bets);
  }
  registerHistoryRoutes(router, api.history);
  registerPriceRoute(router, api.prices);
  registerMetricsRoute(router, api.metrics);
  registerAdminRoute(router, chain, config.GW_ADMIN_TOKEN, log);
  // the WebSocket upgrade is served by the event stream (server/gateway/event-stream.ts)
  router.served(wsRoute(config.GW_PROFILE));
  // the document lists what the router serves, so it is made once every route is in (the first read)
  let document: RawJson | null = null;
  router.get(openApiRoute, () => (document ??= new RawJson(JSON.stringify(gatewayOpenApi({ profile: config.GW_PROFILE }, router.operations())))));
}

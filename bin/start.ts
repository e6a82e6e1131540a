/**
 * `npm start`: the whole stack on embedded defaults in one process (docs/operations.md#run):
 * the local chain on CHAIN_PORT (8899), synthetic prices and books (unless NATS_URL is set),
 * the gateway on GATEWAY_PORT (8080) and the exchange on EXCHANGE_PORT (8081, health on 8082).
 * SIGTERM or SIGINT stops all of it within a few seconds ("stack stopped").
 */
import { startLocalChain, type LocalChain } from '../adapters/chain/local/start.ts';
import { describe, port, readEnv, signedPricesEnv, text } from '../runtime/env.ts';
import { loadOrCreatePriceSignerKey } from '../adapters/feed/price-signer.ts';
import { initParams } from './gateway-chain.ts';
import { gatewayEnv, readGatewayConfig } from './gateway-env.ts';
import { log } from '../kernel/log.ts';
import { assertNativeUws } from '../server/http/listen.ts';
import { startExchangeFromEnv } from './exchange-app.ts';
import { exchangeEnv, exchangeEnvFields } from './exchange-env.ts';
import { startGateway } from './gateway-app.ts';
import { runService, type Stoppable } from './process.ts';

const chainEnv = {
  CHAIN_PORT: describe('JSON-RPC port of the local chain', port(8899)),
  CHAIN_HOST: describe('listen address of the local chain', text('127.0.0.1')),
  ...signedPricesEnv,
};

await runService(
  {
    name: 'stack',
    command: 'npm start',
    purpose: 'The whole stack in one process on embedded defaults: local chain, synthetic prices and books, gateway, exchange.',
    env: { ...gatewayEnv, ...exchangeEnvFields, ...chainEnv },
  },
  async () => {
    const started = performance.now();
    const stops: Array<() => Promise<void>> = [];
    const stopAll = async () => {
      for (const stop of stops.reverse()) await stop().catch((err: unknown) => log.error({ err }, 'shutdown step failed'));
    };
    try {
      assertNativeUws();
      const chainConfig = readEnv(chainEnv);
      const gatewayConfig = readGatewayConfig();
      const exchange = exchangeEnv();

      // an external chain (SOLANA_RPC_URL) replaces the embedded one; the embedded one also serves
      // JSON-RPC on CHAIN_PORT for other clients, and the gateway calls it in-process (over its
      // sockets when CHAIN_FAULTS is set: docs/operations.md#a-fault-profile)
      let localChain: LocalChain | undefined;
      if (!gatewayConfig.SOLANA_RPC_URL) {
        const chain = await startLocalChain({
          dataDir: gatewayConfig.DATA_DIR,
          host: chainConfig.CHAIN_HOST,
          port: chainConfig.CHAIN_PORT,
          init: gatewayConfig.GW_INIT === 'on' ? initParams(gatewayConfig) : null,
          // auto: on when the ticks are the embedded feed's, signed with this data dir's key
          ...(chainConfig.SIGNED_PRICES === 'on' || (chainConfig.SIGNED_PRICES === 'auto' && !gatewayConfig.NATS_URL)
            ? { priceSigner: loadOrCreatePriceSignerKey(gatewayConfig.DATA_DIR, gatewayConfig.PRICE_SIGNER_KEY).publicKey }
            : {}),
          faults: gatewayConfig.CHAIN_FAULTS,
        });
        stops.push(() => chain.stop());
        localChain = chain;
      }

      const gateway = await startGateway(gatewayConfig, localChain ? { localChain } : {});
      stops.push(() => gateway.stop());

      const running = await startExchangeFromEnv();
      stops.push(() => running.stop());

      log.info(
        {
          chain: localChain?.url ?? gatewayConfig.SOLANA_RPC_URL,
          gateway: `http://127.0.0.1:${gateway.port}/api`,
          exchange: `http://127.0.0.1:${exchange.EXCHANGE_PORT}/api/v1`,
          health: `http://127.0.0.1:${exchange.EXCHANGE_MGMT_PORT}/actuator/health`,
          readyMs: Math.round(performance.now() - started),
        },
        'stack ready',
      );
      return { stop: stopAll } satisfies Stoppable;
    } catch (err) {
      await stopAll();
      throw err;
    }
  },
);

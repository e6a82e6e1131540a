/**
 * `npm start`: the whole stack on embedded defaults in one process (design: "Run contract"):
 * the local chain on CHAIN_PORT (8899), synthetic prices and books (unless NATS_URL is set),
 * the gateway on GATEWAY_PORT (8080) and the exchange on EXCHANGE_PORT (8081, health on 8082).
 */
import { bookFeedFromEnv } from '../adapters/feed/from-env.ts';
import { startLocalChain } from '../adapters/chain/local/start.ts';
import { ConfigError, port, readEnv, text } from '../runtime/env.ts';
import { initParams } from '../runtime/gateway/chain-setup.ts';
import { readGatewayConfig } from '../runtime/gateway/config.ts';
import { startGateway } from '../runtime/gateway/gateway.ts';
import { log } from '../runtime/log.ts';
import { assertNativeUws } from '../server/http.ts';
import { exchangeEnv, exchangeStoreOf, startExchange } from './exchange.ts';

const started = performance.now();
const stops: Array<() => Promise<void>> = [];

async function stopAll(code: number): Promise<never> {
  for (const stop of stops.reverse()) await stop().catch((err: unknown) => log.error({ err }, 'shutdown step failed'));
  process.exit(code);
}

try {
  assertNativeUws();
  const chainEnv = readEnv({ CHAIN_PORT: port(8899), CHAIN_HOST: text('127.0.0.1') });
  const gatewayConfig = readGatewayConfig();
  const exchange = exchangeEnv();

  // an external chain (SOLANA_RPC_URL) replaces the embedded one
  if (!gatewayConfig.SOLANA_RPC_URL) {
    const chain = await startLocalChain({
      dataDir: gatewayConfig.DATA_DIR,
      host: chainEnv.CHAIN_HOST,
      port: chainEnv.CHAIN_PORT,
      init: gatewayConfig.GW_INIT === 'on' ? initParams(gatewayConfig) : null,
    });
    stops.push(() => chain.stop());
    gatewayConfig.SOLANA_RPC_URL = chain.url;
  }

  const gateway = await startGateway(gatewayConfig);
  stops.push(() => gateway.stop());

  const running = await startExchange({
    port: exchange.EXCHANGE_PORT,
    mgmtPort: exchange.EXCHANGE_MGMT_PORT,
    bookMaxAgeMs: exchange.BOOK_MAX_AGE_MS,
    feed: bookFeedFromEnv(),
    store: exchangeStoreOf(exchange.REDIS_URL),
  });
  stops.push(() => running.stop());

  log.info(
    {
      chain: gatewayConfig.SOLANA_RPC_URL,
      gateway: `http://127.0.0.1:${gateway.port}/api`,
      exchange: `http://127.0.0.1:${exchange.EXCHANGE_PORT}/api/v1`,
      health: `http://127.0.0.1:${exchange.EXCHANGE_MGMT_PORT}/actuator/health`,
      readyMs: Math.round(performance.now() - started),
    },
    'stack ready',
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopAll(0));
} catch (err) {
  if (err instanceof ConfigError) log.fatal({ variable: err.variable }, `bad configuration: ${err.message}`);
  else log.fatal({ err }, 'stack failed to start');
  await stopAll(1);
}

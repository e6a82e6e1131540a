/**
 * `npm run exchange`: the paper-trading exchange as one process, configured by env
 * (docs/operations.md#processes). REDIS_URL unset -> the ledger in `DATA_DIR/exchange/ledger.log`
 * (held by this process alone); EXCHANGE_FEED nats (default when NATS_URL is set) | synthetic
 * (default otherwise) | binance. The stores are chosen in `exchange-stores.ts`, the process is
 * put together in `exchange-app.ts`.
 */
import { startExchangeFromEnv } from './exchange-app.ts';
import { exchangeEnvFields } from './exchange-env.ts';
import { runService } from './process.ts';

await runService(
  {
    name: 'exchange',
    command: 'npm run exchange',
    purpose: 'The paper-trading exchange: USDT accounts, market orders on live BTC/ETH/SOL books, PnL, equity curve, journal.',
    env: exchangeEnvFields,
  },
  () => startExchangeFromEnv(),
);

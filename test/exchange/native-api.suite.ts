/**
 * The exchange's native API (docs/exchange-api.md, /api/v1), black box: the real exchange process
 * on a private NATS (books published by the test) and a private Redis ledger, also read directly.
 * Run by `native-api.test.ts` (one Redis server) and `native-api-cluster.test.ts` (a Redis
 * Cluster of three masters). The three parts share the file's one exchange.
 *
 * @example
 *   const t = describeNativeApi({ redis: 'cluster' });
 */
import { describe } from 'vitest';
import { exchangeForSuite, type ExchangeUnderTest, type LedgerOptions } from './harness.ts';
import { describeLedger } from './native-api/ledger.ts';
import { describeMarketAndAccounts } from './native-api/market-accounts.ts';
import { describeOrders } from './native-api/orders.ts';

/** Registers the native API suite on an exchange started once for the file; answers its handle (for checks after the suite). */
export function describeNativeApi(ledger: LedgerOptions = {}): ExchangeUnderTest {
  const t = exchangeForSuite({}, ledger);
  describe('market and accounts', () => describeMarketAndAccounts(t));
  describe('orders', () => describeOrders(t));
  describe('ledger', () => describeLedger(t));
  return t;
}

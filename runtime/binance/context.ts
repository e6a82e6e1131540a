/**
 * What the Binance-shaped surface works with (docs/exchange-api.md#binance-spot-api): the exchange's
 * own context, its order engine, the API keys, the numbered books, the candles, the trade tape, the
 * request weights and the order counts.
 */
import type { ApiKeyStore } from '../../adapters/store/api-keys/port.ts';
import type { ExchangeContext } from '../exchange/context.ts';
import type { OrderEngine } from '../exchange/engine/engine.ts';
import type { OrderCounts } from './order-counts.ts';
import type { BookSequence } from './book-sequence.ts';
import type { CandleRecorder } from './candles.ts';
import type { RequestWeights } from './request-weight.ts';
import type { TradeTape } from './trade-tape.ts';

/** Dependencies of every Binance-shaped route and stream. */
export interface BinanceContext {
  exchange: ExchangeContext;
  keys: ApiKeyStore;
  books: BookSequence;
  candles: CandleRecorder;
  /** the venue's public trades (docs/exchange-api.md#binance-trades) */
  tape: TradeTape;
  weights: RequestWeights;
  /** the order engine the order routes are thin handlers over (docs/orders.md) */
  engine: OrderEngine;
  /** new orders per account (X-MBX-ORDER-COUNT-*) */
  orderCounts: OrderCounts;
}

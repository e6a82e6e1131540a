/** What the Binance-shaped surface works with (docs/exchange-api.md#binance-spot-api): the exchange's own context, the API keys, the numbered books, the candles and the request weights. */
import type { ApiKeyStore } from '../../adapters/store/api-keys/port.ts';
import type { ExchangeContext } from '../exchange/context.ts';
import type { BookSequence } from './book-sequence.ts';
import type { CandleRecorder } from './candles.ts';
import type { RequestWeights } from './request-weight.ts';

/** Dependencies of every Binance-shaped route and stream. */
export interface BinanceContext {
  exchange: ExchangeContext;
  keys: ApiKeyStore;
  books: BookSequence;
  candles: CandleRecorder;
  weights: RequestWeights;
}

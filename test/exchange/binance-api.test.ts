/** The Binance-shaped surface, black box, with the ledger on one Redis server (`binance-api.suite.ts`). */
import { describeBinanceApi } from './binance-api.suite.ts';

describeBinanceApi();

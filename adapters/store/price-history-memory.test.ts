import { createMemoryPriceHistory } from './price-history-memory.ts';
import { describePriceHistory } from './price-history.contract.ts';

describePriceHistory('memory', async (retention) => createMemoryPriceHistory(retention));

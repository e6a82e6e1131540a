import { createMemoryPriceHistory } from './memory.ts';
import { describePriceHistory } from './contract.ts';

describePriceHistory('memory', async (retention) => createMemoryPriceHistory(retention));

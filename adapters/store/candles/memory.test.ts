import { createMemoryCandleStore } from './memory.ts';
import { describeCandleStore } from './contract.ts';

describeCandleStore('memory', false, async () => ({ open: async (retention) => createMemoryCandleStore(retention) }));

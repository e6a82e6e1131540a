import { describeIntentStore } from './contract.ts';
import { createMemoryIntentStore } from './memory.ts';

describeIntentStore('memory', async () => {
  const store = createMemoryIntentStore(); // one store: a "restart" keeps the process
  return { open: async () => store };
});

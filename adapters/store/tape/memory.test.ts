import { describeTapeStore } from './contract.ts';
import { createMemoryTapeStore } from './memory.ts';

// a restart of the in-memory tape forgets it; the clock keeps ids above those given before
let clock = 1_000;
describeTapeStore('memory', async () => ({ open: async (capacity) => createMemoryTapeStore(capacity, () => (clock += 10)) }));

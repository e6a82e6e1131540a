import { createMemoryExchangeStore } from './memory.ts';
import { storeContract } from './contract.ts';

storeContract('in-memory', createMemoryExchangeStore);

import { memoryExchangeStore } from './exchange-memory.ts';
import { storeContract } from '../../test/exchange/store-contract.ts';

storeContract('in-memory', memoryExchangeStore);

import { createMemoryBetHistory } from './memory.ts';
import { betHistoryContract } from './contract.ts';

betHistoryContract('memory', () => createMemoryBetHistory());

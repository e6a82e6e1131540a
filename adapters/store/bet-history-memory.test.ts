import { createMemoryBetHistory } from './bet-history-memory.ts';
import { betHistoryContract } from '../../test/support/bet-history-contract.ts';

betHistoryContract('memory', () => createMemoryBetHistory());

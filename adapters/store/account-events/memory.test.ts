/** The in-memory per-account event logs against the shared contract. */
import { createMemoryAccountEventLogs } from './memory.ts';
import { describeAccountEventLogs, type TestAccountEvent } from './contract.ts';

describeAccountEventLogs('memory', async (capacity) => createMemoryAccountEventLogs<TestAccountEvent>(capacity));

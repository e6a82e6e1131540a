import { createMemoryApiKeyStore } from './memory.ts';
import { describeApiKeyStore } from './contract.ts';

describeApiKeyStore('memory', false, async () => ({ open: async () => createMemoryApiKeyStore(), raw: async () => '' }));

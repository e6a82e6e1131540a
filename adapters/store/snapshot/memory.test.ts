import { createMemorySnapshotStore } from './memory.ts';
import { snapshotStoreContract, type ContractEvent } from './contract.ts';

snapshotStoreContract('memory', () => {
  const store = createMemorySnapshotStore<ContractEvent>();
  return { store, events: store.events };
});

import { MemorySnapshotStore } from './memory.ts';
import { snapshotStoreContract, type ContractEvent } from './contract.ts';

snapshotStoreContract('memory', () => {
  const store = new MemorySnapshotStore<ContractEvent>();
  return { store, events: store.events };
});

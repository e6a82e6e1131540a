import { MemorySnapshotStore } from './snapshot-memory.ts';
import { snapshotStoreContract, type ContractEvent } from '../../test/support/snapshot-store-contract.ts';

snapshotStoreContract('memory', () => {
  const store = new MemorySnapshotStore<ContractEvent>();
  return { store, events: store.events };
});

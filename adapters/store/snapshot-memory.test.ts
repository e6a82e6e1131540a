import { MemorySnapshotStore } from './snapshot-memory.ts';
import { snapshotStoreContract } from '../../test/support/snapshot-store-contract.ts';

snapshotStoreContract('memory', () => new MemorySnapshotStore());

/**
 * What the local chain's RPC methods and subscriptions ask of a fault profile
 * (docs/operations.md#a-fault-profile); without a profile they ask nothing and answer as always.
 */
import type { AccountImage } from '../journal.ts';

/** The profile's say in answering requests. */
export interface FaultHooks {
  /** sendTransaction: resolves with the signature, whether the transaction runs now, later or never */
  send(wire: Uint8Array, opts: { skipPreflight: boolean }): Promise<string>;
  /** whether a landed signature's status may be answered now */
  statusShown(signature: string): boolean;
  /** calls `deliver` once a landed signature's status may be shown; returns a cancel */
  holdSignature(signature: string, deliver: () => void): () => void;
  /** calls `cb` with the accounts a rolled-back transaction showed (for `processed` subscribers only); returns an unsubscribe */
  watchRollbacks(cb: (slot: number, accounts: AccountImage[]) => void): () => void;
}

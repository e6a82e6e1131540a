/**
 * What a landing benchmark checks on the chain once its bettors stopped: every bet of its wallets
 * (read with the project's chain adapter, as the gateway reads them) and which of the
 * transactions answered as pending landed (docs/architecture.md#landing-transactions). Reads may
 * meet a 429 burst or a cut socket of a fault profile (docs/operations.md#a-fault-profile), so
 * each is asked again a few times.
 */
import { PublicKey } from '@solana/web3.js';
import * as v from 'valibot';
import { loadRoleKey } from '../../adapters/chain/local/data-dir.ts';
import type { BetAccount } from '../../adapters/chain/port.ts';
import { RpcChain } from '../../adapters/chain/rpc-chain/index.ts';
import { patiently } from '../../test/support/eventually.ts';

const Statuses = v.object({ value: v.array(v.nullable(v.object({ err: v.unknown() }))) });

/** A read-only view of the chain at `url` (straight to the chain, not through the counting proxy). */
export class ChainAudit {
  private readonly view: RpcChain;

  constructor(url: string, dataDir: string) {
    // the relayer key only builds the adapter: nothing is signed
    const relayer = loadRoleKey(dataDir, 'relayer');
    if (!relayer) throw new Error('no relayer key in the chain data dir');
    this.view = new RpcChain({ url, keys: { relayer }, pollMs: 25, timeoutMs: 5_000 });
  }

  /** Every bet of `wallets` on chain. */
  async betsOf(wallets: readonly string[]): Promise<BetAccount[]> {
    const all = await patiently(() => Promise.all(wallets.map((w) => this.view.scanBetsOf(new PublicKey(w)))));
    return all.flat();
  }

  /** Those of `signatures` that landed without an error (searching the whole history). */
  async landed(signatures: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < signatures.length; i += 256) {
      const slice = signatures.slice(i, i + 256);
      const { value } = await patiently(() => this.view.rpc.call('getSignatureStatuses', [slice, { searchTransactionHistory: true }], Statuses));
      slice.forEach((sig, j) => {
        if (value[j] && value[j]?.err === null) out.add(sig);
      });
    }
    return out;
  }

  close(): void {
    this.view.close();
  }
}

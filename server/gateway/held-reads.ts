/**
 * The read routes' fast path (docs/architecture.md#http-kit): `GET /api/state` and
 * `GET /api/balance/:address` answered from what the chain mirror holds, synchronously, with the
 * JSON body made once and reused while the values it was made from are unchanged. When the
 * mirror cannot answer without waiting (not synced yet, the chain away, a wallet not watched
 * yet), these give undefined and the route takes its async path, which waits or refuses.
 */
import type { PublicKey } from '@solana/web3.js';
import type { ChainPort, ContractConfig } from '../../adapters/chain/port.ts';
import { balanceView } from '../../runtime/gateway/views/units.ts';
import { contractStateView } from '../../runtime/gateway/views/state.ts';
import { RawJson } from '../http/reply.ts';
import { ResetMap } from '../../kernel/reset-map.ts';

/** Bodies of balances kept at most; past it the cache starts again (a body is cheap to remake). */
const MAX_BALANCE_BODIES = 20_000;

/** The cached bodies of one gateway's read routes. */
export interface HeldReads {
  /** the state body; null when the contract is not initialised; undefined when it cannot answer now */
  state(): RawJson | null | undefined;
  /** the balance body of the address named `name`, made from memory while nothing held changed, else read (`key` gives it), or undefined when it cannot answer now */
  balance(name: string, key: () => PublicKey): RawJson | undefined;
}

export function heldReads(chain: ChainPort): HeldReads {
  let state: { config: ContractConfig; vault: bigint; body: RawJson } | null = null;
  const balances = new ResetMap<string, { version: number; lamports: bigint; tokenUnits: bigint; body: RawJson }>(MAX_BALANCE_BODIES);
  return {
    state() {
      const config = chain.heldConfig?.();
      if (config === undefined || config === null) return config;
      const vault = chain.heldVaultBalance?.();
      if (vault === undefined) return undefined;
      if (state?.config !== config || state.vault !== vault) state = { config, vault, body: new RawJson(JSON.stringify(contractStateView(config, vault))) };
      return state.body;
    },
    balance(name, key) {
      const version = chain.heldVersion?.();
      if (version === undefined) return undefined;
      const cached = balances.get(name);
      if (cached?.version === version) return cached.body; // nothing held changed since it was made
      const held = chain.heldBalances?.(key());
      if (!held) return undefined;
      if (cached?.lamports === held.lamports && cached.tokenUnits === held.tokenUnits) {
        cached.version = version;
        return cached.body;
      }
      const body = new RawJson(JSON.stringify(balanceView(held.lamports, held.tokenUnits)));
      balances.set(name, { version, ...held, body });
      return body;
    },
  };
}

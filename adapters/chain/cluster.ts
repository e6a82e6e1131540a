/** Which chain the gateway talks to, from its genesis hash (public clusters are never used for test bets). */
import type { ClusterKind } from './port.ts';

/** Genesis hashes of the public Solana clusters. */
export const PUBLIC_GENESIS: Readonly<Record<string, string>> = {
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d': 'mainnet-beta',
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG: 'devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY': 'testnet',
};

/** 'public' for mainnet-beta/devnet/testnet, 'local' for a declared test chain, else 'unknown'. */
export function classifyGenesis(hash: string, knownLocal: readonly string[]): ClusterKind {
  if (Object.hasOwn(PUBLIC_GENESIS, hash)) return 'public';
  if (knownLocal.includes(hash)) return 'local';
  return 'unknown';
}

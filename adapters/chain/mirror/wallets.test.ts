import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { PubSub } from '../pubsub.ts';
import type { RpcClient } from '../rpc-client.ts';
import { WalletWatch } from './wallets.ts';
import type { MirrorHoldings } from './holdings.ts';

/** A watch over a chain where wallet `w<n>` holds n lamports; records which wallets stopped being watched. */
function watch(maxWallets: number) {
  const unsubscribed: string[] = [];
  const rpc = {
    call: (_method: string, params: unknown[]) => {
      const keys = params[0] as string[];
      return Promise.resolve({ context: { slot: 1 }, value: keys.map((k) => ({ lamports: Number(k.slice(1)), owner: '', data: ['', 'base64'] })) });
    },
  } as unknown as RpcClient;
  const pubsub = {
    subscribe: (_m: string, params: unknown[]) => Promise.resolve({ unsubscribe: () => unsubscribed.push(params[0] as string) }),
  } as unknown as PubSub;
  const holdings = { saw: () => undefined, changes: 0 } as unknown as MirrorHoldings;
  return { wallets: new WalletWatch(rpc, pubsub, pino({ level: 'silent' }), holdings, maxWallets), unsubscribed };
}

describe('the watched wallets', () => {
  it('drops the least recently asked past the limit; a wallet asked again (also by a held read) stays', async () => {
    const { wallets, unsubscribed } = watch(4);
    for (const w of ['w1', 'w2', 'w3', 'w4']) expect(await wallets.lamports(w)).toBe(BigInt(w.slice(1)));
    await new Promise((r) => setImmediate(r)); // subscriptions acknowledged
    expect(wallets.peek('w1')).toBe(1n); // asked again: now the most recent
    await wallets.lamports('w5');
    expect(unsubscribed).toEqual(['w2']);
    expect(wallets.keys().sort()).toEqual(['w1', 'w3', 'w4', 'w5']);
    expect(wallets.peek('w2')).toBeUndefined();
    await wallets.lamports('w3'); // asked again
    await wallets.lamports('w6');
    await wallets.lamports('w7');
    expect(unsubscribed).toEqual(['w2', 'w4', 'w1']);
    expect(wallets.keys().sort()).toEqual(['w3', 'w5', 'w6', 'w7']);
  });
});

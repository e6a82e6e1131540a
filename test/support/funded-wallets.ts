/** Custodial wallets for load: made with POST /api/wallet and funded by the faucet (test mode, docs/gateway-api.md#faucet). */
import type { JsonClient } from './json-client.ts';

/** Makes and funds `count` wallets through `client`, 32 at a time; resolves with their addresses. */
export async function fundedWallets(client: JsonClient, count: number): Promise<string[]> {
  const made: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(32, count) }, async () => {
      while (next < count) {
        next++;
        const w = await client.call('POST', '/api/wallet', {});
        const address = w.body?.address;
        if (typeof address !== 'string') throw new Error(`wallet not made: ${JSON.stringify(w)}`);
        const f = await client.call('GET', `/api/faucet/${address}`);
        if (f.status !== 200) throw new Error(`faucet refused: ${JSON.stringify(f)}`);
        made.push(address);
      }
    }),
  );
  return made;
}

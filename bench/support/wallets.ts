/** Custodial wallets for a gateway benchmark: made with POST /api/wallet and funded by the faucet (test mode, docs/gateway-api.md#faucet). */
import type { JsonClient } from '../../test/support/json-client.ts';
import { pool } from './measure.ts';

/** Makes and funds `count` wallets, 32 at a time; resolves with their addresses. */
export async function wallets(client: JsonClient, count: number): Promise<string[]> {
  const made: string[] = [];
  await pool(Array.from({ length: count }), 32, async () => {
    const w = await client.call('POST', '/api/wallet', {});
    const address = w.body?.address;
    if (typeof address !== 'string') throw new Error(`wallet not made: ${JSON.stringify(w)}`);
    const f = await client.call('GET', `/api/faucet/${address}`);
    if (f.status !== 200) throw new Error(`faucet refused: ${JSON.stringify(f)}`);
    made.push(address);
  });
  return made;
}

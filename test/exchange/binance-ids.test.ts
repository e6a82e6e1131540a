/**
 * The Binance surface's integer order and trade ids (docs/orders.md#ids), black-box on exchange
 * processes sharing one Redis: the same ids after the process is replaced (a restart), for orders
 * placed through `/api/v3` (native market orders beside them take none), and never one id twice while two
 * processes place orders for one account at once.
 */
import { describe, expect, it } from 'vitest';
import { ed25519KeyFor, signedCall, type Signing } from './binance-support.ts';
import { btcBook, sharedLedgerForSuite, solBook } from './harness.ts';
import type { Client } from './support.ts';

const ledger = sharedLedgerForSuite();
const startExchange = () => ledger.startExchange([btcBook(), solBook()]);

/** A signed /api/v3 call on the exchange `api`: GET in the query, others in a form body. */
const call = (api: Client, key: Signing, method: string, path: string, params: Record<string, string>) =>
  method === 'GET' ? signedCall(api.base, method, `/api/v3${path}`, key, params) : signedCall(api.base, method, `/api/v3${path}`, key, {}, params);

describe('integer ids across exchange processes on one Redis', () => {
  it('answers the same ids after a restart, and two processes placing at once never give one twice', async () => {
    const first = await startExchange();
    const id = (await first.post('/api/v1/accounts', { name: 'ids', initialCash: '100000' })).body.id as string;
    // an Ed25519 key: any process checks it with the public key alone
    const key = await ed25519KeyFor(first, id);
    const limit = await call(first, key, 'POST', '/order', { symbol: 'SOLUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '1', price: '140' });
    const market = await call(first, key, 'POST', '/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.5' });
    const solMarket = await call(first, key, 'POST', '/order', { symbol: 'SOLUSDT', side: 'BUY', type: 'MARKET', quantity: '2' });
    // a native market order takes no id: it is not an order of this surface (docs/orders.md#ids)
    expect((await first.post(`/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '2' })).status).toBe(201);
    expect([limit.body.orderId, market.body.orderId, solMarket.body.orderId]).toEqual([1, 2, 3]);
    const read = async (api: Client) => ({
      sol: (await call(api, key, 'GET', '/allOrders', { symbol: 'SOLUSDT' })).body.map((o: any) => [o.orderId, o.type, o.status, o.clientOrderId]),
      btc: (await call(api, key, 'GET', '/allOrders', { symbol: 'BTCUSDT' })).body.map((o: any) => [o.orderId, o.type, o.status]),
      trades: (await call(api, key, 'GET', '/myTrades', { symbol: 'SOLUSDT' })).body.map((x: any) => [x.id, x.orderId, x.qty]),
    });
    const before = await read(first);
    expect(before.sol.map((o: unknown[]) => o[0])).toEqual([1, 3]);
    expect(before.btc).toEqual([[2, 'MARKET', 'FILLED']]);
    expect(before.trades).toEqual([[2, 3, '2.00000000']]);

    // the process is replaced: a new one reads the same ids from the same Redis
    await ledger.processes[0]!.stop();
    const second = await startExchange();
    expect(await read(second)).toEqual(before);
    expect((await call(second, key, 'GET', '/order', { symbol: 'SOLUSDT', orderId: '3' })).body).toMatchObject({
      orderId: 3,
      type: 'MARKET',
      status: 'FILLED',
    });

    // two processes place for the account at once: their commits race on its version, and every answer has its own id
    const third = await startExchange();
    const burst = [second, third].flatMap((api) =>
      Array.from({ length: 8 }, (_, i) =>
        i % 4 === 3
          ? api
              .post(`/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '0.1' })
              .then((r) => (r.status === 201 ? null : Promise.reject(new Error(r.text))))
          : call(api, key, 'POST', '/order', {
              symbol: 'SOLUSDT',
              side: 'BUY',
              type: i % 2 === 0 ? 'LIMIT' : 'MARKET',
              quantity: '0.1',
              ...(i % 2 === 0 ? { price: '141', timeInForce: 'GTC' } : {}),
            }).then((r) => {
              expect(r.status, JSON.stringify(r.body)).toBe(200);
              return r.body.orderId as number;
            }),
      ),
    );
    const answered = (await Promise.all(burst)).filter((n): n is number => n !== null);
    expect(answered).toHaveLength(12);
    expect(new Set(answered).size).toBe(12);
    const all = (await call(third, key, 'GET', '/allOrders', { symbol: 'SOLUSDT' })).body.map((o: any) => o.orderId as number);
    // 1 and 3 from before, then the 12 new ones of this surface: 4 to 15, each once, in order
    expect(all).toEqual([1, 3, ...Array.from({ length: 12 }, (_, i) => i + 4)]);
    for (const n of answered) expect(all).toContain(n);
    const trades = (await call(second, key, 'GET', '/myTrades', { symbol: 'SOLUSDT' })).body.map((x: any) => x.id as number);
    // the first SOLUSDT market order's fill was 2 (1 is BTCUSDT's), then one fill for each new MARKET order: 3 to 6
    expect(trades).toEqual(Array.from({ length: 5 }, (_, i) => i + 2));
  }, 120_000);
});

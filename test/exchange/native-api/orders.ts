/**
 * The native API suite, part 2 (`native-api.suite.ts`): orders (ask/bid, level walking, partial fills, fee, 409, 400), idempotency, history, journal replay.
 */
import { replayJournal } from '../../../machines/exchange/journal.ts';
import { ISO, UUID } from '../support.ts';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectError, journalIn } from '../harness.ts';
import type { ExchangeUnderTest } from '../harness.ts';

/** Registers part 2 against `t` (an exchange the caller started for the file). */
export function describeOrders(t: ExchangeUnderTest): void {
  const { openAccount, order } = t;
  // the parts share one exchange: each begins on books nobody took from yet (docs/orders.md#consumed-liquidity)
  beforeAll(() => t.freshBooks());

  describe('orders', () => {
    // each case starts from books nobody took from yet (docs/orders.md#consumed-liquidity)
    beforeEach(() => t.freshBooks());

    it('buys at the ask with a 0.1 % fee', async () => {
      const id = await openAccount('buyer');
      const r = await order(id, 'BTCUSDT', 'BUY', '0.5');
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        orderId: expect.stringMatching(UUID),
        status: 'FILLED',
        symbol: 'BTCUSDT',
        side: 'BUY',
        qty: '0.5000000000',
        requestedQty: '0.5000000000',
        price: '100.0000000000',
        gross: '50.0000000000',
        fee: '0.0500000000',
        cash: '9949.9500000000',
        positionQty: '0.5000000000',
      });
    });

    it('walks levels at the volume-weighted price', async () => {
      const id = await openAccount('walker');
      const r = await order(id, 'BTCUSDT', 'BUY', '2');
      expect(r.body).toMatchObject({ status: 'FILLED', qty: '2.0000000000', price: '100.5000000000', gross: '201.0000000000', fee: '0.2010000000' });
      const hist = await t.api.get(`/api/v1/accounts/${id}/orders`);
      expect(hist.body[0].fills).toEqual([
        { price: '100.0000000000', qty: '1.0000000000', gross: '100.0000000000' },
        { price: '101.0000000000', qty: '1.0000000000', gross: '101.0000000000' },
      ]);
    });

    it('fills partially when depth runs out', async () => {
      const id = await openAccount('deep');
      const r = await order(id, 'BTCUSDT', 'BUY', '10');
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        status: 'PARTIALLY_FILLED',
        qty: '8.0000000000',
        requestedQty: '10.0000000000',
        price: '102.1250000000',
        gross: '817.0000000000',
        fee: '0.8170000000',
        cash: '9182.1830000000',
        positionQty: '8.0000000000',
      });
    });

    it('sells at the bid, walking levels, and realizes PnL with the average cost', async () => {
      const id = await openAccount('seller');
      await order(id, 'BTCUSDT', 'BUY', '3'); // 1@100 + 2@101 = 302, fee 0.302
      const s1 = await order(id, 'BTCUSDT', 'SELL', '1');
      expect(s1.body).toMatchObject({ status: 'FILLED', price: '99.0000000000', gross: '99.0000000000', fee: '0.0990000000', positionQty: '2.0000000000' });
      await t.freshBooks(); // s1 took the 99 level of the book before
      const s2 = await order(id, 'BTCUSDT', 'SELL', '2');
      expect(s2.body).toMatchObject({ status: 'FILLED', price: '98.5000000000', gross: '197.0000000000', fee: '0.1970000000', positionQty: '0.0000000000' });
      // basis 302.302; proceeds 98.901 + 196.803 = 295.704; realized = -6.598
      const positions = await t.api.get(`/api/v1/accounts/${id}/positions`);
      expect(positions.body).toEqual([{ symbol: 'BTCUSDT', qty: '0.0000000000', avgCost: '0.0000000000', realizedPnl: '-6.5980000000' }]);
      const pnl = await t.api.get(`/api/v1/accounts/${id}/pnl`);
      expect(pnl.body).toEqual({
        initialCash: '10000.0000000000',
        netDeposits: '0.0000000000',
        equity: '9993.4020000000',
        pnl: '-6.5980000000',
        pnlPct: '-0.0659800000',
        realizedPnl: '-6.5980000000',
        unrealizedPnl: '0.0000000000',
      });
    });

    it('refuses a buy beyond cash (409 INSUFFICIENT_FUNDS) and a sell beyond the position (409 INSUFFICIENT_POSITION), writing nothing', async () => {
      const id = await openAccount('poor', '100');
      expectError(await order(id, 'BTCUSDT', 'BUY', '1'), 409, 'INSUFFICIENT_FUNDS'); // 100 + 0.1 fee > 100
      expect((await order(id, 'BTCUSDT', 'BUY', '0.5')).status).toBe(201);
      expectError(await order(id, 'BTCUSDT', 'SELL', '0.6'), 409, 'INSUFFICIENT_POSITION');
      expectError(await order(id, 'SOLUSDT', 'SELL', '1'), 409, 'INSUFFICIENT_POSITION');
      const acc = await t.api.get(`/api/v1/accounts/${id}`);
      expect(acc.body.cash).toBe('49.9500000000');
      expect((await t.api.get(`/api/v1/accounts/${id}/orders`)).body).toHaveLength(1);
      expect(await t.redis.xlen(t.keys.account(id).journal)).toBe(2);
    });

    it('takes from a snapshot what earlier orders left of it, and the whole book again once a newer one arrives', async () => {
      const id = await openAccount('consumer');
      expect((await order(id, 'BTCUSDT', 'BUY', '2')).body).toMatchObject({ price: '100.5000000000', gross: '201.0000000000' }); // 1@100 + 1@101
      expect((await order(id, 'BTCUSDT', 'BUY', '2')).body).toMatchObject({ price: '102.0000000000', gross: '204.0000000000' }); // 1@101 + 1@103
      expect((await order(id, 'BTCUSDT', 'BUY', '10')).body).toMatchObject({ status: 'PARTIALLY_FILLED', qty: '4.0000000000', price: '103.0000000000' });
      expectError(await order(id, 'BTCUSDT', 'BUY', '1'), 503, 'PRICE_UNAVAILABLE');
      await t.freshBooks();
      expect((await order(id, 'BTCUSDT', 'BUY', '2')).body).toMatchObject({ price: '100.5000000000' });
    });

    it.each([
      ['missing symbol', { side: 'BUY', qty: '1' }],
      ['unknown symbol', { symbol: 'DOGEUSDT', side: 'BUY', qty: '1' }],
      ['lower-case side', { symbol: 'BTCUSDT', side: 'buy', qty: '1' }],
      ['missing side', { symbol: 'BTCUSDT', qty: '1' }],
      ['missing qty', { symbol: 'BTCUSDT', side: 'BUY' }],
      ['qty a JSON number', { symbol: 'BTCUSDT', side: 'BUY', qty: 1 }],
      ['qty not a number', { symbol: 'BTCUSDT', side: 'BUY', qty: 'one' }],
      ['qty zero', { symbol: 'BTCUSDT', side: 'BUY', qty: '0' }],
      ['qty negative', { symbol: 'BTCUSDT', side: 'BUY', qty: '-1' }],
      ['qty with 11 fraction digits', { symbol: 'BTCUSDT', side: 'BUY', qty: '0.00000000001' }],
    ])('400 VALIDATION_ERROR: %s', async (_what, body) => {
      const id = await openAccount(`v-${_what}`);
      expectError(await t.api.post(`/api/v1/accounts/${id}/orders`, body), 400, 'VALIDATION_ERROR');
    });

    it('400 VALIDATION_ERROR on an Idempotency-Key longer than 200 characters, or a body that is not JSON', async () => {
      const id = await openAccount('v-idem-key');
      expectError(await order(id, 'BTCUSDT', 'BUY', '1', 'k'.repeat(201)), 400, 'VALIDATION_ERROR');
      expectError(await t.api.post(`/api/v1/accounts/${id}/orders`, 'symbol=BTCUSDT'), 400, 'VALIDATION_ERROR');
      expect((await t.api.get(`/api/v1/accounts/${id}/orders`)).body).toEqual([]);
    });

    it("keeps the order's final state readable by an operator in Redis, without the book", async () => {
      const id = await openAccount('operator-view');
      const r = await order(id, 'SOLUSDT', 'BUY', '1');
      const snapshot = JSON.parse((await t.redis.hget(t.keys.account(id).orderStates, r.body.orderId)) ?? 'null');
      expect(snapshot).toMatchObject({
        status: 'done',
        value: 'filled',
        context: { request: { orderId: r.body.orderId, accountId: id }, execution: { kind: 'executed', result: r.body } },
      });
      expect(JSON.stringify(snapshot)).not.toContain('bids');
    });
  });

  describe('idempotency', () => {
    it('answers a repeat with the original result and trades once', async () => {
      const id = await openAccount('idem');
      const first = await order(id, 'BTCUSDT', 'BUY', '1', 'key-1');
      const again = await order(id, 'BTCUSDT', 'BUY', '1', 'key-1');
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect((await t.api.get(`/api/v1/accounts/${id}`)).body.cash).toBe('9899.9000000000');
      expect((await t.api.get(`/api/v1/accounts/${id}/orders`)).body).toHaveLength(1);
    });

    it('refuses the same key with another body (422 IDEMPOTENCY_KEY_REUSED)', async () => {
      const id = await openAccount('idem-reuse');
      await order(id, 'BTCUSDT', 'BUY', '1', 'key-2');
      expectError(await order(id, 'BTCUSDT', 'BUY', '2', 'key-2'), 422, 'IDEMPOTENCY_KEY_REUSED');
      expectError(await order(id, 'SOLUSDT', 'BUY', '1', 'key-2'), 422, 'IDEMPOTENCY_KEY_REUSED');
    });

    it('trades once when the same key arrives concurrently', async () => {
      const id = await openAccount('idem-race');
      const answers = await Promise.all(Array.from({ length: 12 }, () => order(id, 'SOLUSDT', 'BUY', '2', 'race-key')));
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([201]));
      expect(new Set(answers.map((a) => a.body.orderId)).size).toBe(1);
      expect((await t.api.get(`/api/v1/accounts/${id}/orders`)).body).toHaveLength(1);
      expect((await t.api.get(`/api/v1/accounts/${id}`)).body.cash).toBe('9699.7000000000');
    });
  });

  describe('history', () => {
    it('lists orders newest first with nested fills, honours limit and defaults to 100', async () => {
      const id = await openAccount('history', '100000');
      for (let i = 0; i < 103; i++) expect((await order(id, 'SOLUSDT', 'BUY', `0.${String(i + 1).padStart(3, '0')}`)).status).toBe(201);
      const all = await t.api.get(`/api/v1/accounts/${id}/orders`);
      expect(all.body).toHaveLength(100);
      expect(all.body[0].qty).toBe('0.1030000000');
      expect(all.body[0]).toMatchObject({ status: 'FILLED', symbol: 'SOLUSDT', side: 'BUY', accountId: id, createdAt: expect.stringMatching(ISO) });
      expect(all.body[0].fills).toEqual([{ price: '150.0000000000', qty: '0.1030000000', gross: '15.4500000000' }]);
      const two = await t.api.get(`/api/v1/accounts/${id}/orders?limit=2`);
      expect(two.body.map((o: any) => o.qty)).toEqual(['0.1030000000', '0.1020000000']);
      expect((await t.api.get(`/api/v1/accounts/${id}/orders?limit=1000`)).body).toHaveLength(103);
      for (const bad of ['0', '-1', 'abc', '1.5', '1001']) expectError(await t.api.get(`/api/v1/accounts/${id}/orders?limit=${bad}`), 400, 'VALIDATION_ERROR');
    });
  });

  describe('journal', () => {
    it('rebuilds every account balance from the journal stream', async () => {
      const ids = (await t.api.get('/api/v1/accounts')).body.map((a: any) => a.id as string);
      expect(ids.length).toBeGreaterThan(5);
      for (const id of ids) {
        const rebuilt = replayJournal(await journalIn(t.redis, id));
        const acc = (await t.api.get(`/api/v1/accounts/${id}`)).body;
        expect(rebuilt.cash.toFixed(10)).toBe(acc.cash);
        expect(rebuilt.netDeposits.toFixed(10)).toBe(acc.netDeposits);
        const positions = (await t.api.get(`/api/v1/accounts/${id}/positions`)).body;
        for (const p of positions) {
          expect(rebuilt.positions[p.symbol as 'BTCUSDT']?.qty.toFixed(10)).toBe(p.qty);
          expect(rebuilt.positions[p.symbol as 'BTCUSDT']?.realizedPnl.toFixed(10)).toBe(p.realizedPnl);
        }
      }
    });
  });
}

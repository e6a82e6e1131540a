/**
 * The native API suite, part 1 (`native-api.suite.ts`): health, prices and the stale-book rule, accounts, wire schemas.
 */
import * as v from 'valibot';
import {
  AccountTotalsView,
  AccountView,
  CashMovementView,
  EquityPointView,
  OrderRecordView,
  OrderResultView,
  PnlView,
  PositionView,
  PriceView,
} from '../../../server/exchange/wire.ts';
import { book, ISO, PRICE8, publishBehind, UUID } from '../support.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, solBook } from '../harness.ts';
import type { ExchangeUnderTest } from '../harness.ts';

/** Registers part 1 against `t` (an exchange the caller started for the file). */
export function describeMarketAndAccounts(t: ExchangeUnderTest): void {
  const { openAccount, order } = t;
  // the parts share one exchange: each begins on books nobody took from yet (docs/orders.md#consumed-liquidity)
  beforeAll(() => t.freshBooks());

  describe('health and prices', () => {
    it('answers UP on the management port', async () => {
      const r = await t.mgmt.get('/actuator/health');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ status: 'UP' });
    });

    it('lists price objects of fresh books with 8-digit bid/ask and an ISO time', async () => {
      const r = await t.api.get('/api/v1/prices');
      expect(r.status).toBe(200);
      const btc = r.body.find((p: any) => p.symbol === 'BTCUSDT');
      expect(btc).toEqual({ symbol: 'BTCUSDT', bid: '99.00000000', ask: '100.00000000', ts: expect.stringMatching(ISO) });
      for (const p of r.body) {
        expect(p.bid).toMatch(PRICE8);
        expect(p.ask).toMatch(PRICE8);
      }
    });

    it('reads a single price and refuses unknown symbols', async () => {
      const r = await t.api.get('/api/v1/prices/SOLUSDT');
      expect(r.body).toMatchObject({ symbol: 'SOLUSDT', bid: '149.50000000', ask: '150.00000000' });
      expectError(await t.api.get('/api/v1/prices/DOGEUSDT'), 400, 'VALIDATION_ERROR');
    });

    it('never shows or trades on a book older than 30 s', async () => {
      await publishBehind(t.nc, t.api, book('ETHUSDT', [['3000', '1']], [['3001', '1']], Date.now() - 31_000), solBook(Date.now() + 1));
      expectError(await t.api.get('/api/v1/prices/ETHUSDT'), 503, 'PRICE_UNAVAILABLE');
      const list = await t.api.get('/api/v1/prices');
      expect(list.body.map((p: any) => p.symbol)).not.toContain('ETHUSDT');
      const id = await openAccount('stale-book');
      expectError(await order(id, 'ETHUSDT', 'BUY', '0.1'), 503, 'PRICE_UNAVAILABLE');
      const after = await t.api.get(`/api/v1/accounts/${id}`);
      expect(after.body.cash).toBe('10000.0000000000');
      expect((await t.api.get(`/api/v1/accounts/${id}/orders`)).body).toEqual([]);
    });
  });

  describe('accounts', () => {
    it('creates an account with every spec field', async () => {
      const r = await t.api.post('/api/v1/accounts', { name: 'alice', initialCash: '10000' });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'alice',
        baseCurrency: 'USDT',
        initialCash: '10000.0000000000',
        cash: '10000.0000000000',
        feeRate: '0.0010000000',
        createdAt: expect.stringMatching(ISO),
      });
      const custom = await t.api.post('/api/v1/accounts', { name: 'alice-2', initialCash: '5.5', feeRate: '0.0025' });
      expect(custom.body.feeRate).toBe('0.0025000000');
    });

    it('refuses a taken name with 409 NAME_TAKEN', async () => {
      await openAccount('bob');
      expectError(await t.api.post('/api/v1/accounts', { name: 'bob', initialCash: '1' }), 409, 'NAME_TAKEN');
    });

    it.each([
      ['missing name', { initialCash: '10' }],
      ['empty name', { name: '', initialCash: '10' }],
      ['name not a string', { name: 5, initialCash: '10' }],
      ['missing initialCash', { name: 'x1' }],
      ['initialCash a JSON number', { name: 'x2', initialCash: 10 }],
      ['initialCash not a number', { name: 'x3', initialCash: 'ten' }],
      ['initialCash zero', { name: 'x4', initialCash: '0' }],
      ['initialCash negative', { name: 'x5', initialCash: '-1' }],
      ['initialCash in exponent notation', { name: 'x6', initialCash: '1e5' }],
      ['feeRate not a number', { name: 'x7', initialCash: '10', feeRate: 'abc' }],
      ['feeRate negative', { name: 'x8', initialCash: '10', feeRate: '-0.1' }],
      ['feeRate of 100 %', { name: 'x9', initialCash: '10', feeRate: '1' }],
      ['body not an object', []],
    ])('400 VALIDATION_ERROR: %s', async (_what, body) => {
      expectError(await t.api.post('/api/v1/accounts', body), 400, 'VALIDATION_ERROR');
    });

    it('400 on a body that is not JSON, or no body', async () => {
      expectError(await t.api.post('/api/v1/accounts', '{"name":'), 400, 'VALIDATION_ERROR');
      expectError(await t.api.post('/api/v1/accounts'), 400, 'VALIDATION_ERROR');
    });

    it('reads one account and the list with totals', async () => {
      const id = await openAccount('carol', '2500.5');
      const one = await t.api.get(`/api/v1/accounts/${id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({
        id,
        name: 'carol',
        cash: '2500.5000000000',
        positionsValue: '0.0000000000',
        equity: '2500.5000000000',
        netDeposits: '0.0000000000',
        pnl: '0.0000000000',
        pnlPct: '0.0000000000',
        realizedPnl: '0.0000000000',
        unrealizedPnl: '0.0000000000',
      });
      const list = await t.api.get('/api/v1/accounts');
      expect(list.status).toBe(200);
      expect(list.body).toContainEqual(one.body);
    });

    it('answers 404 ACCOUNT_NOT_FOUND on every account path of an unknown id', async () => {
      const id = '00000000-0000-4000-8000-000000000000';
      for (const r of [
        await t.api.get(`/api/v1/accounts/${id}`),
        await t.api.del(`/api/v1/accounts/${id}`),
        await t.api.post(`/api/v1/accounts/${id}/deposits`, { amount: '1' }),
        await t.api.put(`/api/v1/accounts/${id}/cash`, { target: '1' }),
        await order(id, 'BTCUSDT', 'BUY', '0.1'),
        await t.api.get(`/api/v1/accounts/${id}/pnl`),
        await t.api.get(`/api/v1/accounts/${id}/positions`),
        await t.api.get(`/api/v1/accounts/${id}/orders`),
        await t.api.get(`/api/v1/accounts/${id}/equity`),
        await t.api.get(`/api/v1/accounts/${id}/equity?snapshot=true`),
      ])
        expectError(r, 404, 'ACCOUNT_NOT_FOUND');
    });
  });

  describe('wire schemas', () => {
    it('every answer matches its strict schema in server/exchange/wire.ts', async () => {
      const ok = <S extends v.GenericSchema>(schema: S, r: { status: number; body: unknown }, status = 200) => {
        expect(r.status).toBe(status);
        const parsed = v.safeParse(schema, r.body);
        expect(parsed.issues?.map((i) => `${i.path?.map((p) => p.key).join('.')}: ${i.message}`)).toBeUndefined();
      };
      ok(v.array(PriceView), await t.api.get('/api/v1/prices'));
      ok(PriceView, await t.api.get('/api/v1/prices/BTCUSDT'));
      const created = await t.api.post('/api/v1/accounts', { name: 'schemas', initialCash: '5000' });
      ok(AccountView, created, 201);
      const id = created.body.id as string;
      ok(OrderResultView, await order(id, 'BTCUSDT', 'BUY', '1.5'), 201);
      ok(OrderResultView, await order(id, 'BTCUSDT', 'SELL', '0.25', 'schema-key'), 201);
      ok(CashMovementView, await t.api.post(`/api/v1/accounts/${id}/deposits`, { amount: '-12.5', reason: 'fee' }), 201);
      ok(CashMovementView, await t.api.put(`/api/v1/accounts/${id}/cash`, { target: '4000' }));
      ok(AccountTotalsView, await t.api.get(`/api/v1/accounts/${id}`));
      ok(v.array(AccountTotalsView), await t.api.get('/api/v1/accounts'));
      ok(PnlView, await t.api.get(`/api/v1/accounts/${id}/pnl`));
      ok(v.array(PositionView), await t.api.get(`/api/v1/accounts/${id}/positions`));
      const history = await t.api.get(`/api/v1/accounts/${id}/orders`);
      ok(v.array(OrderRecordView), history);
      expect(history.body).toHaveLength(2);
      ok(v.array(EquityPointView), await t.api.get(`/api/v1/accounts/${id}/equity?snapshot=true`));
    });
  });
}

/**
 * The native API suite, part 3 (`native-api.suite.ts`): cash movements, PnL identity, equity curve, delete.
 */
import { D, ISO, MONEY } from '../support.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../harness.ts';
import type { ExchangeUnderTest } from '../harness.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** Registers part 3 against `t` (an exchange the caller started for the file). */
export function describeLedger(t: ExchangeUnderTest): void {
  const { openAccount, order } = t;
  // the parts share one exchange: each begins on books nobody took from yet (docs/orders.md#consumed-liquidity)
  beforeAll(() => t.freshBooks());

  describe('cash, PnL and equity', () => {
    const pnlIdentity = (p: any) => expect(D(p.pnl).eq(D(p.equity).minus(D(p.initialCash).plus(D(p.netDeposits))))).toBe(true);

    it('keeps pnl = equity - (initialCash + netDeposits) across deposits, withdrawals and cash resets, valuing at the bid', async () => {
      const id = await openAccount('pnl', '1000');
      await order(id, 'SOLUSDT', 'BUY', '2'); // 300 + 0.3 fee
      const p0 = (await t.api.get(`/api/v1/accounts/${id}/pnl`)).body;
      pnlIdentity(p0);
      expect(p0.pnl).toBe('-1.3000000000'); // 2 x 149.50 bid = 299 vs 300.3 paid
      const acc = (await t.api.get(`/api/v1/accounts/${id}`)).body;
      expect(acc.positionsValue).toBe('299.0000000000');

      const dep = await t.api.post(`/api/v1/accounts/${id}/deposits`, { amount: '500.25', reason: 'top-up' });
      expect(dep.status).toBe(201);
      expect(dep.body).toMatchObject({ type: 'DEPOSIT', amount: '500.2500000000', cash: '1199.9500000000', netDeposits: '500.2500000000' });
      const wd = await t.api.post(`/api/v1/accounts/${id}/deposits`, { amount: '-200' });
      expect(wd.body).toMatchObject({ type: 'WITHDRAWAL', amount: '-200.0000000000', cash: '999.9500000000', netDeposits: '300.2500000000' });
      expectError(await t.api.post(`/api/v1/accounts/${id}/deposits`, { amount: '-5000' }), 409, 'INSUFFICIENT_FUNDS');
      const reset = await t.api.put(`/api/v1/accounts/${id}/cash`, { target: '5000', reason: 'reset' });
      expect(reset.status).toBe(200);
      expect(reset.body).toMatchObject({ type: 'CASH_SET', amount: '4000.0500000000', cash: '5000.0000000000', netDeposits: '4300.3000000000' });

      const p1 = (await t.api.get(`/api/v1/accounts/${id}/pnl`)).body;
      pnlIdentity(p1);
      expect(p1.pnl).toBe(p0.pnl); // cash movements are not profit (docs/exchange-api.md#totals-and-pnl)
      expect(D(p1.pnl).eq(D(p1.realizedPnl).plus(D(p1.unrealizedPnl)))).toBe(true);
    });

    it('writes nothing when the cash target equals the cash', async () => {
      const id = await openAccount('same-cash', '700');
      const journal = await t.redis.xlen(t.keys.account(id).journal);
      const points = (await t.api.get(`/api/v1/accounts/${id}/equity`)).body.length;
      const r = await t.api.put(`/api/v1/accounts/${id}/cash`, { target: '700.000' });
      expect(r.status).toBe(200);
      expect(r.body.amount).toBe('0.0000000000');
      expect(await t.redis.xlen(t.keys.account(id).journal)).toBe(journal);
      expect((await t.api.get(`/api/v1/accounts/${id}/equity`)).body).toHaveLength(points);
    });

    it.each([
      ['deposits', 'post', { amount: '0' }],
      ['deposits', 'post', { amount: 5 }],
      ['deposits', 'post', { amount: 'x' }],
      ['deposits', 'post', {}],
      ['deposits', 'post', { amount: '1', reason: 7 }],
      ['cash', 'put', { target: '-1' }],
      ['cash', 'put', { target: 1 }],
      ['cash', 'put', {}],
      ['cash', 'put', { target: '1', reason: ['x'] }],
      ['cash', 'put', { target: '1.12345678901' }],
    ])('400 VALIDATION_ERROR on %s %s %j', async (path, method, body) => {
      const id = await openAccount(`cash-v-${path}-${JSON.stringify(body)}`);
      expectError(await t.api.call(method.toUpperCase(), `/api/v1/accounts/${id}/${path}`, body), 400, 'VALIDATION_ERROR');
    });

    it('records equity points, filters by since, and snapshots on demand', async () => {
      const id = await openAccount('curve', '1000');
      await order(id, 'SOLUSDT', 'BUY', '1');
      const points = (await t.api.get(`/api/v1/accounts/${id}/equity`)).body;
      expect(points).toHaveLength(2);
      for (const p of points) {
        expect(Object.keys(p).sort()).toEqual(['cash', 'equity', 'positionsValue', 'realizedPnl', 'ts', 'unrealizedPnl']);
        expect(p.ts).toMatch(ISO);
        for (const k of ['cash', 'equity', 'positionsValue', 'realizedPnl', 'unrealizedPnl']) expect(p[k]).toMatch(MONEY);
      }
      expect(points[1]).toMatchObject({ cash: '849.8500000000', positionsValue: '149.5000000000', equity: '999.3500000000', unrealizedPnl: '-0.6500000000' });
      const cut = new Date(Date.parse(points[1].ts) + 1).toISOString();
      await sleep(5);
      const snap = await t.api.get(`/api/v1/accounts/${id}/equity?snapshot=true&since=${encodeURIComponent(cut)}`);
      expect(snap.body).toHaveLength(1);
      expect(snap.body[0]).toMatchObject({ equity: '999.3500000000' });
      expect((await t.api.get(`/api/v1/accounts/${id}/equity`)).body).toHaveLength(3);
      expectError(await t.api.get(`/api/v1/accounts/${id}/equity?since=yesterday`), 400, 'VALIDATION_ERROR');
      expectError(await t.api.get(`/api/v1/accounts/${id}/equity?snapshot=maybe`), 400, 'VALIDATION_ERROR');
    });
  });

  describe('delete and unknown routes', () => {
    it('deletes an account with everything it owns; later reads give 404 and the name is free again', async () => {
      const id = await openAccount('doomed', '1000');
      await order(id, 'SOLUSDT', 'BUY', '1', 'doomed-key');
      await t.api.post(`/api/v1/accounts/${id}/deposits`, { amount: '10' });
      await t.api.get(`/api/v1/accounts/${id}/equity?snapshot=true`);
      const del = await t.api.del(`/api/v1/accounts/${id}`);
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expectError(await t.api.get(`/api/v1/accounts/${id}`), 404, 'ACCOUNT_NOT_FOUND');
      expectError(await t.api.get(`/api/v1/accounts/${id}/orders`), 404, 'ACCOUNT_NOT_FOUND');
      expectError(await t.api.del(`/api/v1/accounts/${id}`), 404, 'ACCOUNT_NOT_FOUND');
      expect((await t.api.get('/api/v1/accounts')).body.map((a: any) => a.id)).not.toContain(id);
      expect(await t.keysMatching(`*${id}*`)).toEqual([]);
      expect(await t.redis.zscore(t.keys.accounts, id)).toBeNull();
      await openAccount('doomed', '1');
    });

    it('answers 404 with {error, message} on unknown routes', async () => {
      expectError(await t.api.get('/api/v2/prices'), 404, 'NOT_FOUND');
    });
  });
}

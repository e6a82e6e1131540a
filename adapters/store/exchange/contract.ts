/**
 * The contract every ExchangeStore adapter must meet (the in-memory default and Redis run
 * the same cases): unique names, versioned all-or-nothing commits, idempotency records,
 * history order and limit, equity `since`, journal order, order states saved by commits, delete,
 * locked balances, and the engine's orders, client ids, open-order index and fills.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AccountRecord, EngineOrderWrite, EquityPoint, ExchangeStore, LedgerCommit, OrderRecord, TradeRecord } from './port.ts';
import { applyCashMovement, applyLock, applyTrade, openingBalances } from '../../../machines/exchange/ledger.ts';
import { dec } from '../../../machines/exchange/money.ts';

const account = (name: string): AccountRecord => ({
  id: randomUUID(),
  name,
  baseCurrency: 'USDT',
  initialCash: dec('1000'),
  feeRate: dec('0.001'),
  createdAt: new Date().toISOString(),
});
const point = (ts: string, cash = '1000.0000000000'): EquityPoint => ({
  ts,
  cash,
  positionsValue: '0.0000000000',
  equity: cash,
  realizedPnl: '0.0000000000',
  unrealizedPnl: '0.0000000000',
});
const orderOf = (a: AccountRecord, n: number): OrderRecord => ({
  orderId: randomUUID(),
  accountId: a.id,
  status: 'FILLED',
  symbol: 'SOLUSDT',
  side: 'BUY',
  requestedQty: `${n}`,
  qty: `${n}`,
  price: '1',
  gross: `${n}`,
  fee: '0',
  cash: '0',
  positionQty: `${n}`,
  idempotencyKey: null,
  createdAt: new Date().toISOString(),
  fills: [{ price: '1', qty: `${n}`, gross: `${n}` }],
});

async function open(store: ExchangeStore, name = `acct-${randomUUID()}`) {
  const a = account(name);
  const b = openingBalances(a.initialCash);
  expect(await store.createAccount(a, b, { type: 'OPEN', ts: a.createdAt, amount: '1000' }, point(a.createdAt))).toBe('created');
  return a;
}

const engineWrite = (orderId: string, clientOrderId: string, open: boolean, status: string): EngineOrderWrite => ({
  orderId,
  clientOrderId,
  symbol: 'SOLUSDT',
  open,
  state: { status: 'active', value: status, context: { orderId } },
});
const tradeOf = (orderId: string, n: number): TradeRecord => ({
  tradeId: `${orderId}-${n}`,
  orderId,
  clientOrderId: `c-${orderId}`,
  symbol: 'SOLUSDT',
  side: 'BUY',
  price: '100',
  qty: '1',
  quoteQty: '100',
  commission: '0.1',
  commissionAsset: 'USDT',
  liquidity: 'MAKER',
  bookTs: 1_700_000_000_000 + n,
  time: 1_700_000_000_100 + n,
});

/** Registers the contract cases for a store made by `make`. */
export function storeContract(name: string, make: () => ExchangeStore): void {
  describe(`${name} store contract`, () => {
    it('creates accounts with unique names and loads them back exactly', async () => {
      const store = make();
      const a = await open(store, `unique-${randomUUID()}`);
      expect(
        await store.createAccount({ ...a, id: randomUUID() }, openingBalances(dec('1')), { type: 'OPEN', ts: a.createdAt, amount: '1' }, point(a.createdAt)),
      ).toBe('name_taken');
      const loaded = await store.load(a.id);
      expect(loaded?.bundle.account.name).toBe(a.name);
      expect(loaded?.bundle.balances.cash.toFixed()).toBe('1000');
      expect(loaded?.bundle.version).toBe(1);
      expect(await store.listAccountIds()).toContain(a.id);
      expect(await store.load(randomUUID())).toBeNull();
      await store.close();
    });

    it('commits only on the expected version, and writes every part of a change', async () => {
      const store = make();
      const a = await open(store);
      const loaded = (await store.load(a.id))!;
      const balances = applyTrade(loaded.bundle.balances, { symbol: 'SOLUSDT', side: 'BUY', qty: dec('2'), gross: dec('300'), fee: dec('0.3') });
      const order = orderOf(a, 2);
      const change: LedgerCommit = {
        balances,
        journal: [{ type: 'TRADE', ts: order.createdAt, orderId: order.orderId, symbol: 'SOLUSDT', side: 'BUY', qty: '2', gross: '300', fee: '0.3' }],
        order,
        equityPoint: point(new Date(Date.now() + 5).toISOString(), '699.7'),
        idempotency: { key: 'k', record: { fingerprint: 'f', status: 201, body: { orderId: order.orderId } } },
      };
      expect(await store.commit(a.id, 1, change)).toBe('committed');
      // a writer that read version 1 loses, and writes nothing
      expect(await store.commit(a.id, 1, { ...change, order: orderOf(a, 9), idempotency: undefined })).toBe('conflict');
      const after = (await store.load(a.id, 'k'))!;
      expect(after.bundle.version).toBe(2);
      expect(after.bundle.balances.cash.toFixed()).toBe('699.7');
      expect(after.bundle.balances.positions.SOLUSDT?.costBasis.toFixed()).toBe('300.3');
      expect(after.idempotency).toEqual({ fingerprint: 'f', status: 201, body: { orderId: order.orderId } });
      expect(await store.orders(a.id, 10)).toEqual([order]);
      expect((await store.journal(a.id)).map((e) => e.type)).toEqual(['OPEN', 'TRADE']);
      expect(await store.equity(a.id, -Infinity)).toHaveLength(2);
      // an idempotency key is written once, even at the right version
      expect(await store.commit(a.id, 2, { balances, journal: [], idempotency: change.idempotency })).toBe('conflict');
      expect(await store.commit(randomUUID(), 1, change)).toBe('missing');
      await store.close();
    });

    it('sets the fee rates and bumps the version, so a change computed before conflicts', async () => {
      const store = make();
      const a = await open(store);
      expect(await store.setFees(a.id, { feeRate: dec('0.002'), makerFeeRate: dec('0.0005') })).toBe(true);
      const loaded = (await store.load(a.id))!;
      expect([loaded.bundle.account.feeRate.toFixed(), loaded.bundle.account.makerFeeRate?.toFixed(), loaded.bundle.version]).toEqual(['0.002', '0.0005', 2]);
      expect(await store.commit(a.id, 1, { balances: loaded.bundle.balances, journal: [] })).toBe('conflict');
      expect(await store.commit(a.id, 2, { balances: loaded.bundle.balances, journal: [] })).toBe('committed');
      expect(await store.setFees(randomUUID(), { feeRate: dec('0'), makerFeeRate: dec('0') })).toBe(false);
      await store.close();
    });

    it('returns history newest first up to the limit, and equity points since a time', async () => {
      const store = make();
      const a = await open(store);
      let balances = (await store.load(a.id))!.bundle.balances;
      const t0 = Date.now() + 1000;
      for (let i = 1; i <= 5; i++) {
        balances = applyCashMovement(balances, dec('1'));
        expect(
          await store.commit(a.id, i, {
            balances,
            journal: [{ type: 'DEPOSIT', ts: new Date().toISOString(), amount: '1' }],
            order: orderOf(a, i),
            equityPoint: point(new Date(t0 + i * 1000).toISOString(), String(1000 + i)),
          }),
        ).toBe('committed');
      }
      expect((await store.orders(a.id, 2)).map((o) => o.qty)).toEqual(['5', '4']);
      expect((await store.orders(a.id, 100)).map((o) => o.qty)).toEqual(['5', '4', '3', '2', '1']);
      expect((await store.equity(a.id, t0 + 3000)).map((p) => p.cash)).toEqual(['1003', '1004', '1005']);
      expect((await store.journal(a.id)).map((e) => e.type)).toEqual(['OPEN', 'DEPOSIT', 'DEPOSIT', 'DEPOSIT', 'DEPOSIT', 'DEPOSIT']);
      await store.close();
    });

    it("saves an order's final state with its commit, and delete removes everything", async () => {
      const store = make();
      const a = await open(store);
      const loaded = (await store.load(a.id))!;
      const order = orderOf(a, 1);
      const state = { status: 'done', value: 'filled', context: { request: { orderId: order.orderId } } };
      expect(
        await store.commit(a.id, loaded.bundle.version, {
          balances: loaded.bundle.balances,
          journal: [],
          order,
          orderState: { orderId: order.orderId, state },
        }),
      ).toBe('committed');
      expect(await store.readOrderState(a.id, order.orderId)).toEqual(state);
      // a commit that loses the version race writes no state either
      expect(await store.commit(a.id, loaded.bundle.version, { balances: loaded.bundle.balances, journal: [], orderState: { orderId: 'lost', state } })).toBe(
        'conflict',
      );
      expect(await store.readOrderState(a.id, 'lost')).toBeNull();
      expect(await store.deleteAccount(a.id)).toBe(true);
      expect(await store.deleteAccount(a.id)).toBe(false);
      expect(await store.load(a.id)).toBeNull();
      expect(await store.readOrderState(a.id, order.orderId)).toBeNull();
      expect(await store.orders(a.id, 10)).toEqual([]);
      expect(await store.journal(a.id)).toEqual([]);
      expect(await store.listAccountIds()).not.toContain(a.id);
      await open(store, a.name);
      await store.close();
    });

    it('keeps locked cash and positions, engine orders by id and client id, the open-order index and fills, all in the commit', async () => {
      const store = make();
      const a = await open(store);
      const b0 = (await store.load(a.id))!.bundle;
      let balances = applyTrade(b0.balances, { symbol: 'SOLUSDT', side: 'BUY', qty: dec('2'), gross: dec('200'), fee: dec('0.2') });
      balances = applyLock(applyLock(balances, 'USDT', dec('100.1')), 'SOLUSDT', dec('0.5'));
      const [o1, o2] = [randomUUID(), randomUUID()];
      expect(
        await store.commit(a.id, b0.version, {
          balances,
          journal: [{ type: 'LOCK', ts: a.createdAt, orderId: o1, asset: 'USDT', amount: '100.1' }],
          engineOrders: [engineWrite(o1, `c-${o1}`, true, 'new'), engineWrite(o2, `c-${o2}`, true, 'partiallyFilled')],
          trades: [tradeOf(o2, 1)],
        }),
      ).toBe('committed');
      expect(b0.lastIds).toEqual({ order: 0, trade: 0 });
      const loaded = (await store.load(a.id))!.bundle;
      // the integer ids given so far (docs/orders.md#ids): two orders, one fill; an order is read by its place
      expect(loaded.lastIds).toEqual({ order: 2, trade: 1 });
      expect(await store.engineOrder(a.id, { number: 2 })).toEqual(engineWrite(o2, '', true, 'partiallyFilled').state);
      expect(await store.engineOrder(a.id, { number: 1 })).toEqual(engineWrite(o1, '', true, 'new').state);
      for (const number of [0, 3, -1, 1.5, 2 ** 60]) expect(await store.engineOrder(a.id, { number })).toBeNull();
      expect(loaded.balances.cashLocked.toFixed()).toBe('100.1');
      expect(loaded.balances.positions.SOLUSDT?.locked.toFixed()).toBe('0.5');
      expect(await store.engineOrder(a.id, { orderId: o1 })).toEqual(engineWrite(o1, '', true, 'new').state);
      expect(await store.engineOrder(a.id, { clientOrderId: `c-${o2}` })).toEqual(engineWrite(o2, '', true, 'partiallyFilled').state);
      expect(await store.engineOrder(a.id, { clientOrderId: 'nobody' })).toBeNull();
      expect((await store.openEngineOrders()).filter((o) => o.accountId === a.id)).toHaveLength(2);
      expect(await store.openEngineOrders(a.id)).toHaveLength(2);
      expect(await store.openEngineOrders(randomUUID())).toEqual([]);
      // a client id names one order for good: giving it to another order is a conflict that writes nothing
      const stolen = engineWrite(randomUUID(), `c-${o1}`, true, 'new');
      expect(await store.commit(a.id, loaded.version, { balances, journal: [], engineOrders: [stolen], trades: [tradeOf(o1, 9)] })).toBe('conflict');
      expect(await store.trades(a.id)).toEqual([tradeOf(o2, 1)]);
      // moving an order on overwrites its snapshot; a final one leaves the open index
      expect(
        await store.commit(a.id, loaded.version, {
          balances: applyLock(balances, 'USDT', dec('-100.1')),
          journal: [{ type: 'UNLOCK', ts: a.createdAt, orderId: o1, asset: 'USDT', amount: '100.1' }],
          engineOrders: [engineWrite(o1, `c-${o1}`, false, 'canceled')],
          trades: [tradeOf(o2, 2)],
        }),
      ).toBe('committed');
      expect(await store.engineOrder(a.id, { orderId: o1 })).toEqual(engineWrite(o1, '', false, 'canceled').state);
      expect((await store.engineOrders(a.id)).map((s) => (s as { value: string }).value)).toEqual(['canceled', 'partiallyFilled']);
      // an order moved on keeps its place: one more fill, no more orders
      expect((await store.load(a.id))!.bundle.lastIds).toEqual({ order: 2, trade: 2 });
      expect(await store.engineOrder(a.id, { number: 1 })).toEqual(engineWrite(o1, '', false, 'canceled').state);
      expect((await store.openEngineOrders()).filter((o) => o.accountId === a.id)).toEqual([
        { accountId: a.id, state: engineWrite(o2, '', true, 'partiallyFilled').state },
      ]);
      expect((await store.trades(a.id)).map((t) => t.tradeId)).toEqual([`${o2}-1`, `${o2}-2`]);
      expect((await store.journal(a.id)).map((e) => e.type)).toEqual(['OPEN', 'LOCK', 'UNLOCK']);
      expect((await store.load(a.id))!.bundle.balances.cashLocked.toFixed()).toBe('0');
      // delete takes the account's open orders out of the index
      expect(await store.deleteAccount(a.id)).toBe(true);
      expect((await store.openEngineOrders()).filter((o) => o.accountId === a.id)).toEqual([]);
      expect(await store.engineOrders(a.id)).toEqual([]);
      expect(await store.trades(a.id)).toEqual([]);
      await store.close();
    });
  });
}

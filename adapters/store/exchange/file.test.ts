import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storeContract } from './contract.ts';
import { applyLock, applyTrade, openingBalances } from '../../../machines/exchange/ledger.ts';
import { replayJournal } from '../../../machines/exchange/journal.ts';
import { dec } from '../../../machines/exchange/money.ts';
import { openFileExchangeStore } from './file.ts';
import type { AccountRecord, ExchangeStore } from './port.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const dir = tempDir('exchange-file-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(dir, `ledger-${n++}.log`);

storeContract('journal file', () => openFileExchangeStore(freshPath()));

const account = (name: string): AccountRecord => ({
  id: `id-${name}`,
  name,
  baseCurrency: 'USDT',
  initialCash: dec('1000'),
  feeRate: dec('0.001'),
  createdAt: new Date(0).toISOString(),
});
const point = { ts: new Date(0).toISOString(), cash: '1000', positionsValue: '0', equity: '1000', realizedPnl: '0', unrealizedPnl: '0' };

/** Opens an account and makes `trades` buys of 1 SOL at 100 with a 0.1 fee. */
async function trade(store: ExchangeStore, name: string, trades: number): Promise<string> {
  const a = account(name);
  await store.createAccount(a, openingBalances(a.initialCash), { type: 'OPEN', ts: a.createdAt, amount: '1000' }, point);
  for (let i = 0; i < trades; i++) {
    const { bundle } = (await store.load(a.id))!;
    const t = { symbol: 'SOLUSDT' as const, side: 'BUY' as const, qty: dec('1'), gross: dec('100'), fee: dec('0.1') };
    const entry = { type: 'TRADE' as const, ts: a.createdAt, orderId: `o${i}`, symbol: t.symbol, side: t.side, qty: '1', gross: '100', fee: '0.1' };
    expect(
      await store.commit(a.id, bundle.version, {
        balances: applyTrade(bundle.balances, t),
        journal: [entry],
        idempotency: { key: `k${i}`, record: { fingerprint: 'f', status: 201, body: { orderId: `o${i}` } } },
      }),
    ).toBe('committed');
  }
  return a.id;
}

describe('journal file store', () => {
  it('reopens to the same accounts, balances, versions, journal and idempotency records', async () => {
    const path = freshPath();
    const first = openFileExchangeStore(path);
    const id = await trade(first, 'reopen', 3);
    const { bundle } = (await first.load(id))!;
    await first.commit(id, bundle.version, {
      balances: bundle.balances,
      journal: [],
      orderState: { orderId: 'o9', state: { status: 'done', value: 'filled' } },
    });
    const before = await first.load(id, 'k1');
    await first.close();

    const second = openFileExchangeStore(path);
    const after = await second.load(id, 'k1');
    expect(after?.bundle.version).toBe(5);
    expect(after?.bundle.balances.cash.toFixed()).toBe(before?.bundle.balances.cash.toFixed());
    expect(after?.bundle.balances.positions.SOLUSDT?.qty.toFixed()).toBe('3');
    expect(after?.idempotency).toEqual(before?.idempotency);
    expect(replayJournal(await second.journal(id)).cash.toFixed()).toBe('699.7');
    expect(await second.readOrderState(id, 'o9')).toEqual({ status: 'done', value: 'filled' });
    await second.close();
  });

  it('reopens to the fee rates last set, and keeps them through a compaction', async () => {
    const path = freshPath();
    const first = openFileExchangeStore(path, { compactSlack: 3 });
    const id = await trade(first, 'fees', 1);
    expect(await first.setFees(id, { feeRate: dec('0.002'), makerFeeRate: dec('0.0004') })).toBe(true);
    await first.close();
    const second = openFileExchangeStore(path, { compactSlack: 3 });
    const rates = async (s: ExchangeStore) => {
      const { account, version } = (await s.load(id))!.bundle;
      return [account.feeRate.toFixed(), account.makerFeeRate?.toFixed(), version];
    };
    expect(await rates(second)).toEqual(['0.002', '0.0004', 3]);
    await trade(second, 'more', 4);
    await second.close();
    const third = openFileExchangeStore(path);
    expect(await rates(third)).toEqual(['0.002', '0.0004', 3]);
    await third.close();
  });

  it('cuts a torn last line (a write cut by kill -9) and keeps everything before it', async () => {
    const path = freshPath();
    const first = openFileExchangeStore(path);
    const id = await trade(first, 'torn', 2);
    await first.close();
    appendFileSync(path, '{"k":"commit","id":"id-torn","v":3,"c":{"bal');
    const second = openFileExchangeStore(path);
    expect((await second.load(id))?.bundle.version).toBe(3);
    expect(await trade(second, 'after-torn', 1)).toBe('id-after-torn');
    await second.close();
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
  });

  it('refuses a file damaged before its last line, naming it', async () => {
    const path = freshPath();
    const first = openFileExchangeStore(path);
    await trade(first, 'damaged', 1);
    await first.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    appendFileSync(path, `${lines[0]}\n`); // the same account created twice
    expect(() => openFileExchangeStore(path)).toThrow(/does not apply/);
  });

  it('compacts to one line per account once it has grown, keeping the state', async () => {
    const path = freshPath();
    const store = openFileExchangeStore(path, { compactSlack: 10 });
    const a = await trade(store, 'compact-a', 12);
    const b = await trade(store, 'compact-b', 2);
    expect(store.lines()).toBeLessThan(17);
    await store.deleteAccount(b);
    await store.close();
    const again = openFileExchangeStore(path);
    expect((await again.load(a))?.bundle.balances.positions.SOLUSDT?.qty.toFixed()).toBe('12');
    expect(await again.load(b)).toBeNull();
    expect(await again.journal(a)).toHaveLength(13);
    await again.close();
  });

  it('keeps engine orders, client ids, the open index, fills and locks through a compaction and a reopen', async () => {
    const path = freshPath();
    const store = openFileExchangeStore(path, { compactSlack: 1 });
    const id = await trade(store, 'engine-compact', 1);
    const { bundle } = (await store.load(id))!;
    const state = (value: string) => ({ status: 'active', value, context: { orderId: 'e1' } });
    const fill = {
      tradeId: 'e1-1',
      orderId: 'e1',
      clientOrderId: 'c1',
      symbol: 'SOLUSDT' as const,
      side: 'SELL' as const,
      price: '110',
      qty: '0.5',
      quoteQty: '55',
      commission: '0.055',
      commissionAsset: 'USDT' as const,
      liquidity: 'MAKER' as const,
      bookTs: 7,
      time: 8,
    };
    expect(
      await store.commit(id, bundle.version, {
        balances: applyLock(bundle.balances, 'SOLUSDT', dec('0.5')),
        journal: [{ type: 'LOCK', ts: 't', orderId: 'e1', asset: 'SOLUSDT', amount: '0.5' }],
        engineOrders: [{ orderId: 'e1', clientOrderId: 'c1', symbol: 'SOLUSDT', open: true, state: state('partiallyFilled') }],
        trades: [fill],
      }),
    ).toBe('committed');
    for (let i = 0; i < 3; i++) await trade(store, `engine-compact-${i}`, 1); // grows the file past its slack: compacted
    await store.close();
    const again = openFileExchangeStore(path);
    expect(readFileSync(path, 'utf8')).toContain(`"k":"acct"`);
    expect(await again.engineOrder(id, { clientOrderId: 'c1' })).toEqual(state('partiallyFilled'));
    // the places, so the integer ids (docs/orders.md#ids), survive the compaction and the reopen
    expect(await again.engineOrder(id, { number: 1 })).toEqual(state('partiallyFilled'));
    expect((await again.load(id))!.bundle.lastIds).toEqual({ order: 1, trade: 1 });
    expect((await again.openEngineOrders()).filter((o) => o.accountId === id)).toEqual([{ accountId: id, state: state('partiallyFilled') }]);
    expect(await again.trades(id)).toEqual([fill]);
    expect((await again.load(id))!.bundle.balances.positions.SOLUSDT?.locked.toFixed()).toBe('0.5');
    expect(replayJournal(await again.journal(id)).positions.SOLUSDT?.locked.toFixed()).toBe('0.5');
    await again.close();
  });
});

describe('journal file store as the outbox of its events', () => {
  it('relays a new account from its opening entry and one of an earlier file from its end; the cursor survives reopening and compaction', async () => {
    const path = freshPath();
    const first = openFileExchangeStore(path);
    const id = await trade(first, 'relayed', 2);
    const page = (await first.outbox.read(id, 10))!;
    expect(page.journal.map((e) => [e.id, e.entry.type])).toEqual([
      ['1', 'OPEN'],
      ['2', 'TRADE'],
      ['3', 'TRADE'],
    ]);
    expect((await first.outbox.read(id, 1))!.journal).toHaveLength(1);
    await first.outbox.advance(id, { journal: '2', orders: 0 });
    await first.outbox.advance(id, { journal: '1', orders: 0 }); // never back
    await first.close();
    // an account created by an earlier version: its create line has no `r`
    const legacy = account('legacy');
    appendFileSync(
      path,
      `${JSON.stringify({ k: 'create', account: { ...legacy, initialCash: '1000', feeRate: '0.001' }, balances: { cash: '1000', netDeposits: '1000', feesPaid: '0', positions: {} }, opening: { type: 'OPEN', ts: legacy.createdAt, amount: '1000' }, point })}\n`,
    );
    const second = openFileExchangeStore(path, { compactSlack: 1 });
    expect((await second.outbox.read(id, 10))!.journal.map((e) => e.id)).toEqual(['3']);
    expect((await second.outbox.read(legacy.id, 10))!.journal).toEqual([]);
    await trade(second, 'after', 1); // compacts: the cursors go into the account lines
    await second.close();
    const third = openFileExchangeStore(path);
    expect((await third.outbox.read(id, 10))!.journal.map((e) => e.id)).toEqual(['3']);
    expect((await third.outbox.read(legacy.id, 10))!.journal).toEqual([]);
    expect(await third.outbox.read('nobody', 10)).toBeNull();
    await third.close();
  });
});

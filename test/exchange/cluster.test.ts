/**
 * Two exchange processes on one Redis racing orders on one account stay consistent, share one
 * public trade tape, and a restart on the same Redis changes nothing any read returns.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { binanceCall } from './binance-support.ts';
import { replayJournal } from '../../machines/exchange/journal.ts';
import { journalIn, sharedLedgerForSuite } from './harness.ts';
import { book, D, type Client } from './support.ts';

const ledger = sharedLedgerForSuite();

const booksTs = Date.now();
const books = [
  book(
    'BTCUSDT',
    [
      ['97000.10', '0.5'],
      ['96999.00', '1'],
    ],
    [
      ['97000.20', '0.3'],
      ['97001.00', '2'],
    ],
    booksTs,
  ),
  book('ETHUSDT', [['3500.10', '3']], [['3500.20', '3']], booksTs),
  book('SOLUSDT', [['149.90', '1000']], [['150.00', '1000']], booksTs),
];

const startExchange = () => ledger.startExchange(books);

const rebuiltFromJournal = async (id: string) => replayJournal(await journalIn(ledger.redis, id));

describe('two processes on one Redis', () => {
  let a: Client;
  let b: Client;
  let accountId: string;

  beforeAll(async () => {
    a = await startExchange();
    b = await startExchange();
  });

  it('racing buys on one account never overspend: exactly the affordable number fill', async () => {
    const created = await a.post('/api/v1/accounts', { name: 'shared', initialCash: '1000' });
    accountId = created.body.id;
    // each buy of 1 SOL costs 150.15 with the fee: 6 fit in 1000
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).post(`/api/v1/accounts/${accountId}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '1' })),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(6);
    expect(statuses.filter((s) => s === 409)).toHaveLength(24);
    const acc = (await b.get(`/api/v1/accounts/${accountId}`)).body;
    expect(acc.cash).toBe('99.1000000000');
    expect((await a.get(`/api/v1/accounts/${accountId}/positions`)).body).toEqual([
      { symbol: 'SOLUSDT', qty: '6.0000000000', avgCost: '150.1500000000', realizedPnl: '0.0000000000' },
    ]);
    expect((await a.get(`/api/v1/accounts/${accountId}/orders`)).body).toHaveLength(6);
  });

  it('racing mixed orders and cash movements from both processes replay exactly from the journal', async () => {
    const ops = Array.from({ length: 40 }, (_, i) => {
      const api = i % 2 ? a : b;
      const path = `/api/v1/accounts/${accountId}`;
      switch (i % 4) {
        case 0:
          return api.post(`${path}/deposits`, { amount: '100.123' });
        case 1:
          return api.post(`${path}/orders`, { symbol: 'BTCUSDT', side: 'BUY', qty: '0.001' });
        case 2:
          return api.post(`${path}/orders`, { symbol: 'SOLUSDT', side: 'SELL', qty: '0.5' });
        default:
          return api.post(`${path}/deposits`, { amount: '-10' });
      }
    });
    const answers = await Promise.all(ops);
    for (const r of answers) expect([201, 409]).toContain(r.status);
    const rebuilt = await rebuiltFromJournal(accountId);
    const acc = (await a.get(`/api/v1/accounts/${accountId}`)).body;
    expect(rebuilt.cash.toFixed(10)).toBe(acc.cash);
    expect(rebuilt.netDeposits.toFixed(10)).toBe(acc.netDeposits);
    expect(D(acc.cash).gte(0)).toBe(true);
    const pnl = (await b.get(`/api/v1/accounts/${accountId}/pnl`)).body;
    expect(D(pnl.pnl).eq(D(pnl.equity).minus(D(pnl.initialCash).plus(D(pnl.netDeposits))))).toBe(true);
    const orders = (await a.get(`/api/v1/accounts/${accountId}/orders?limit=1000`)).body;
    const fees = orders.reduce((s: ReturnType<typeof D>, o: { fee: string }) => s.plus(D(o.fee)), D('0'));
    expect(fees.eq(rebuilt.feesPaid)).toBe(true);
    const filled = answers.filter((r) => r.status === 201 && r.body.orderId).length;
    expect(orders).toHaveLength(6 + filled);
  });

  it('one Idempotency-Key sent to both processes at once trades once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).post(`/api/v1/accounts/${accountId}/orders`, { symbol: 'ETHUSDT', side: 'BUY', qty: '0.01' }, { 'Idempotency-Key': 'both' }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((r) => r.body.orderId)).size).toBe(1);
    const orders = (await a.get(`/api/v1/accounts/${accountId}/orders?limit=1000`)).body;
    expect(orders.filter((o: { symbol: string }) => o.symbol === 'ETHUSDT')).toHaveLength(1);
  });

  it("puts a fill made on one process on the other's tape and trade stream, with the same id", async () => {
    const ws = new WebSocket(`${b.base.replace('http', 'ws')}/ws/solusdt@trade`);
    const told: { t: number; q: string }[] = [];
    ws.on('message', (data) => told.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const trades = async (api: Client) =>
      (await binanceCall(api.base, 'GET', '/api/v3/trades', 'symbol=SOLUSDT&limit=5')).body as { id: number; qty: string }[];
    const before = (await trades(a)).at(-1)?.id ?? 0;
    const made = await a.post('/api/v1/accounts', { name: 'taper', initialCash: '1000' });
    expect((await a.post(`/api/v1/accounts/${made.body.id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '0.25' })).status).toBe(201);
    const onA = (await trades(a)).at(-1);
    expect(onA).toMatchObject({ id: before + 1, qty: '0.25000000' });
    expect((await trades(b)).at(-1)).toEqual(onA);
    await vi.waitFor(() => expect(told.find((m) => m.t === onA?.id)).toMatchObject({ q: '0.25000000' }), { timeout: 5_000, interval: 50 });
    ws.terminate();
  });

  it('a restart on the same Redis changes nothing any read returns', async () => {
    await a.post('/api/v1/accounts', { name: 'second', initialCash: '50' });
    const reads = async (api: Client) => {
      const accounts = (await api.get('/api/v1/accounts')).body as { id: string }[];
      const out: Record<string, unknown> = { accounts, prices: (await api.get('/api/v1/prices')).body };
      for (const { id } of accounts) {
        for (const path of ['', '/pnl', '/positions', '/orders?limit=1000', '/equity']) out[id + path] = (await api.get(`/api/v1/accounts/${id}${path}`)).body;
      }
      for (const b of books) out[b.symbol] = (await api.get(`/api/v1/prices/${b.symbol}`)).body;
      return out;
    };
    const tape = async (api: Client) => (await binanceCall(api.base, 'GET', '/api/v3/trades', 'symbol=SOLUSDT&limit=1000')).body as { id: number }[];
    const before = await reads(a);
    const tapeBefore = await tape(a);
    expect(Object.keys(before).length).toBeGreaterThan(10);
    await Promise.all(ledger.processes.splice(0).map((p) => p.stop()));
    const c = await startExchange();
    expect(await reads(c)).toEqual(before);
    // the tape too, and a trade after the restart takes the next id, never one given before
    expect(await tape(c)).toEqual(tapeBefore);
    expect((await c.post(`/api/v1/accounts/${accountId}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '0.1' })).status).toBe(201);
    expect((await tape(c)).at(-1)?.id).toBe((tapeBefore.at(-1)?.id ?? 0) + 1);
  });
});

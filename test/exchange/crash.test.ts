/**
 * An exchange killed (SIGKILL) in the middle of a burst of orders leaves a consistent ledger:
 * each order is in Redis whole or not at all, the journal still replays to the balances, and
 * retrying every Idempotency-Key on a fresh process trades each order exactly once.
 */
import { describe, expect, it } from 'vitest';
import { replayJournal } from '../../machines/exchange/journal.ts';
import { journalIn, sharedLedgerForSuite } from './harness.ts';
import { book, D, type Client } from './support.ts';

const ledger = sharedLedgerForSuite();

const startExchange = () => ledger.startExchange([book('SOLUSDT', [['149.90', '100000']], [['150.00', '100000']])]);

const journalOf = (id: string) => journalIn(ledger.redis, id);

describe('crash in the middle of a burst', () => {
  it('keeps every order whole or absent, and retries trade each exactly once', async () => {
    const first = await startExchange();
    const id = (await first.post('/api/v1/accounts', { name: 'crash', initialCash: '100000' })).body.id as string;
    const place = (api: Client, i: number) =>
      api.post(`/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '1' }, { 'Idempotency-Key': `burst-${i}` });
    let done = 0;
    let firstAnswered: () => void = () => undefined;
    const killPoint = new Promise<void>((resolve) => (firstAnswered = resolve));
    const burst = Array.from({ length: 300 }, (_, i) =>
      place(first, i).then(
        (r) => {
          if (++done === 1) firstAnswered();
          return r;
        },
        () => null,
      ),
    );
    // kill once the first order is answered, while the rest are in flight; the ledger must stay whole
    await killPoint;
    await ledger.processes[0]!.stop('SIGKILL');
    const answered = (await Promise.all(burst)).filter((r) => r?.status === 201);

    const second = await startExchange();
    const entries = await journalOf(id);
    const trades = entries.filter((e) => e.type === 'TRADE');
    const history = (await second.get(`/api/v1/accounts/${id}/orders?limit=1000`)).body as { orderId: string }[];
    expect(history).toHaveLength(trades.length);
    expect(new Set(history.map((o) => o.orderId))).toEqual(new Set(trades.map((e) => (e.type === 'TRADE' ? e.orderId : ''))));
    for (const r of answered) expect(history.map((o) => o.orderId)).toContain(r!.body.orderId);
    expect(replayJournal(entries).cash.toFixed(10)).toBe((await second.get(`/api/v1/accounts/${id}`)).body.cash);

    const retried = await Promise.all(Array.from({ length: 300 }, (_, i) => place(second, i)));
    expect(retried.map((r) => r.status)).toEqual(Array(300).fill(201));
    for (const r of answered) expect(retried.map((x) => x.body.orderId)).toContain(r!.body.orderId);
    const after = (await second.get(`/api/v1/accounts/${id}/orders?limit=1000`)).body as unknown[];
    expect(after).toHaveLength(300);
    const acc = (await second.get(`/api/v1/accounts/${id}`)).body;
    expect(D(acc.cash).eq(D('100000').minus(D('150.15').times(300)))).toBe(true);
    expect(replayJournal(await journalOf(id)).cash.toFixed(10)).toBe(acc.cash);
    console.log(`crash test: ${answered.length} of 300 answered before the kill, ${trades.length} committed`);
  });
});

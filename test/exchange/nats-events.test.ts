/**
 * The exchange announces its ledger on NATS (docs/exchange-api.md#ledger-events-on-nats): with
 * NATS_URL set, every journal entry and every fill of a committed change is published on
 * `exchange.<accountId>.journal` and `exchange.<accountId>.fill`, in the wire format of
 * `runtime/exchange/events.ts`.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ExchangeEventSchema, type ExchangeEvent } from '../../runtime/exchange/events.ts';
import { exchangeForSuite } from './harness.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const ex = exchangeForSuite();

describe('exchange events on NATS', () => {
  it('publishes the opening entry, then the fills and the trade entry of an order, on the account subjects', async () => {
    const seen: Array<{ subject: string; event: ExchangeEvent }> = [];
    const sub = ex.nc.subscribe('exchange.>', {
      callback: (_err, msg) => {
        seen.push({ subject: msg.subject, event: v.parse(ExchangeEventSchema, msg.json()) });
      },
    });
    await ex.nc.flush();
    const id = await ex.openAccount('events', '10000');
    const order = await ex.order(id, 'SOLUSDT', 'BUY', '2');
    expect(order.status).toBe(201);
    const deadline = Date.now() + 5_000;
    while (seen.filter((s) => s.event.accountId === id).length < 3 && Date.now() < deadline) await sleep(25);
    sub.unsubscribe();
    const mine = seen.filter((s) => s.event.accountId === id);
    expect(mine.map((s) => s.subject)).toEqual([`exchange.${id}.journal`, `exchange.${id}.fill`, `exchange.${id}.journal`]);
    expect(mine[0]!.event).toMatchObject({ kind: 'journal', entry: { type: 'OPEN', amount: expect.stringMatching(/^10000/) } });
    expect(mine[1]!.event).toMatchObject({ kind: 'fill', orderId: order.body.orderId, symbol: 'SOLUSDT', side: 'BUY', price: expect.stringMatching(/^150/) });
    expect(mine[2]!.event).toMatchObject({ kind: 'journal', entry: { type: 'TRADE', orderId: order.body.orderId, side: 'BUY' } });
  });
});

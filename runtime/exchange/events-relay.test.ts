/**
 * The events of an outbox page (docs/operations.md#exchange-events-outbox): a trade's fills come
 * right before its TRADE entry, as the commit announced them; every event has a dedup id derived
 * from the ledger alone; only a journal entry is a point to resume from.
 */
import { describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../adapters/store/exchange/port.ts';
import { outboxEvents } from './events-relay.ts';

const order = (orderId: string, levels: number): OrderRecord => ({
  orderId,
  accountId: 'a',
  status: 'FILLED',
  symbol: 'SOLUSDT',
  side: 'BUY',
  requestedQty: '2',
  qty: '2',
  price: '150',
  gross: '300',
  fee: '0.3',
  cash: '0',
  positionQty: '2',
  idempotencyKey: null,
  createdAt: 't',
  fills: Array.from({ length: levels }, (_, i) => ({ price: `${150 + i}`, qty: '1', gross: `${150 + i}` })),
});
const trade = (orderId: string) => ({
  type: 'TRADE' as const,
  ts: 't',
  orderId,
  symbol: 'SOLUSDT' as const,
  side: 'BUY' as const,
  qty: '2',
  gross: '300',
  fee: '0.3',
});

describe('outboxEvents', () => {
  it("puts each order's fills before its trade entry and resumes only after journal entries", () => {
    const events = outboxEvents('a', {
      from: { journal: '5-0', orders: 3 },
      journal: [
        { id: '6-0', entry: { type: 'DEPOSIT', ts: 't', amount: '1' } },
        { id: '7-0', entry: trade('o1') },
        { id: '8-0', entry: trade('resting') }, // a resting fill: no order record, no fill event
        { id: '9-0', entry: trade('o2') },
      ],
      orders: [order('o1', 2), order('o2', 1)],
    });
    expect(events.map((e) => [e.event.kind, e.msgId, e.cursor])).toEqual([
      ['journal', 'a/journal/6-0', { journal: '6-0', orders: 3 }],
      ['fill', 'a/fill/o1/0', null],
      ['fill', 'a/fill/o1/1', null],
      ['journal', 'a/journal/7-0', { journal: '7-0', orders: 4 }],
      ['journal', 'a/journal/8-0', { journal: '8-0', orders: 4 }],
      ['fill', 'a/fill/o2/0', null],
      ['journal', 'a/journal/9-0', { journal: '9-0', orders: 5 }],
    ]);
  });
});

/** Pages of allOrders and myTrades (docs/exchange-api.md#binance-orders). */
import { describe, expect, it } from 'vitest';
import { historyPage } from './history-page.ts';

const items = ['a', 'b', 'c', 'd', 'e'].map((id, i) => ({ id, time: 1000 + i * 10 }));
const page = (q: Parameters<typeof historyPage>[3]) =>
  historyPage(
    items,
    (t) => t.id,
    (t) => t.time,
    q,
  ).map((t) => t.id);

describe('history pages', () => {
  it('answers the newest without a starting point, the oldest from one, oldest first', () => {
    expect(page({ limit: 2 })).toEqual(['d', 'e']);
    expect(page({ limit: 10 })).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(page({ fromId: 'b', limit: 2 })).toEqual(['b', 'c']);
    expect(page({ startTime: 1015, limit: 2 })).toEqual(['c', 'd']);
    expect(page({ endTime: 1025, limit: 2 })).toEqual(['b', 'c']);
    expect(page({ startTime: 1010, endTime: 1030, limit: 10 })).toEqual(['b', 'c', 'd']);
    expect(page({ fromId: 'c', endTime: 1035, limit: 10 })).toEqual(['c', 'd']);
  });

  it('answers nothing from an id it does not know', () => {
    expect(page({ fromId: 'zz', limit: 10 })).toEqual([]);
  });
});

/** Pages of allOrders and myTrades (docs/exchange-api.md#binance-orders). */
import { describe, expect, it } from 'vitest';
import { historyPage } from './history-page.ts';

// ids as the account's orders of one symbol have them: increasing, with the other symbols' ids between
const items = [1, 2, 4, 7, 8].map((id, i) => ({ id, time: 1000 + i * 10 }));
const page = (q: Parameters<typeof historyPage>[3]) =>
  historyPage(
    items,
    (t) => t.id,
    (t) => t.time,
    q,
  ).map((t) => t.id);

describe('history pages', () => {
  it('answers the newest without a starting point, the oldest from one, oldest first', () => {
    expect(page({ limit: 2 })).toEqual([7, 8]);
    expect(page({ limit: 10 })).toEqual([1, 2, 4, 7, 8]);
    expect(page({ fromId: 2, limit: 2 })).toEqual([2, 4]);
    expect(page({ startTime: 1015, limit: 2 })).toEqual([4, 7]);
    expect(page({ endTime: 1025, limit: 2 })).toEqual([2, 4]);
    expect(page({ startTime: 1010, endTime: 1030, limit: 10 })).toEqual([2, 4, 7]);
    expect(page({ fromId: 4, endTime: 1035, limit: 10 })).toEqual([4, 7]);
  });

  it('starts from the first id at or above the one asked, as Binance does', () => {
    expect(page({ fromId: 3, limit: 2 })).toEqual([4, 7]);
    expect(page({ fromId: 0, limit: 1 })).toEqual([1]);
    expect(page({ fromId: 9, limit: 10 })).toEqual([]);
  });
});

/** Order counts per account in 10-second and UTC-day windows (docs/exchange-api.md#binance-limits). */
import { describe, expect, it } from 'vitest';
import { OrderCounts } from './order-counts.ts';

describe('order counts', () => {
  it('counts per account in fixed windows, says which limit an order goes past', () => {
    let now = Date.parse('2026-01-01T00:00:05Z');
    const c = new OrderCounts(() => now);
    expect(c.count('a')).toEqual({
      headers: [
        ['X-MBX-ORDER-COUNT-10S', '1'],
        ['X-MBX-ORDER-COUNT-1D', '1'],
      ],
      over: null,
    });
    expect(c.count('b').headers).toEqual([
      ['X-MBX-ORDER-COUNT-10S', '1'],
      ['X-MBX-ORDER-COUNT-1D', '1'],
    ]);
    for (let i = 2; i <= 100; i++) expect(c.count('a').over).toBeNull();
    expect(c.count('a')).toEqual({
      headers: [
        ['X-MBX-ORDER-COUNT-10S', '101'],
        ['X-MBX-ORDER-COUNT-1D', '101'],
      ],
      over: { limit: 100, intervalNum: 10, interval: 'SECOND' },
    });
    now += 5_000;
    expect(c.count('a')).toEqual({
      headers: [
        ['X-MBX-ORDER-COUNT-10S', '1'],
        ['X-MBX-ORDER-COUNT-1D', '102'],
      ],
      over: null,
    });
    now = Date.parse('2026-01-02T00:00:00Z');
    expect(c.count('a').headers).toEqual([
      ['X-MBX-ORDER-COUNT-10S', '1'],
      ['X-MBX-ORDER-COUNT-1D', '1'],
    ]);
  });
});

/** The Binance events made from account events (docs/exchange-api.md#binance-user-data-stream): the cases the black-box suites do not reach. */
import { describe, expect, it } from 'vitest';
import type { AccountEvent } from '../../../runtime/exchange/account-events.ts';
import { userDataEvents } from './user-data.ts';

const order = (over: Partial<Extract<AccountEvent, { type: 'order' }>>): AccountEvent => ({
  type: 'order',
  seq: 7,
  accountId: 'acc',
  execution: 'NEW',
  orderId: 'o-1',
  clientOrderId: 'mine',
  symbol: 'BTCUSDT',
  side: 'SELL',
  orderType: 'LIMIT',
  timeInForce: 'IOC',
  status: 'NEW',
  price: '100.1234567891',
  origQty: '0.5000000000',
  quoteOrderQty: null,
  executedQty: '0.0000000000',
  cumulativeQuoteQty: '0.0000000000',
  commission: '0.0000000000',
  lastFill: null,
  createdAt: 1000,
  time: 2000,
  ...over,
});

describe('userDataEvents', () => {
  it('reports a cancel with the canceled order client id in C, off the book', () => {
    const [report] = userDataEvents(order({ execution: 'CANCELED', status: 'CANCELED', timeInForce: 'GTC', ids: { order: 3, trade: -1 } }), 7);
    expect(report).toMatchObject({ e: 'executionReport', x: 'CANCELED', X: 'CANCELED', c: 'mine', C: 'mine', w: false, I: 7, E: 2000, T: 2000, O: 1000 });
    // the order's integer id, a JSON number (docs/orders.md#ids)
    expect(report).toMatchObject({ i: 3, t: -1 });
    expect(report).not.toHaveProperty('W');
    expect(report).not.toHaveProperty('eR');
    // 8 fraction digits, as Binance writes them
    expect(report).toMatchObject({ p: '100.12345679', q: '0.50000000', n: '0', N: null, t: -1 });
  });

  it("reports a cancel that named its own client id with it in c, the canceled order's in C", () => {
    const [report] = userDataEvents(order({ execution: 'CANCELED', status: 'CANCELED', ids: { order: 3, trade: -1, cancel: 'the-cancel' } }), 8);
    expect(report).toMatchObject({ x: 'CANCELED', c: 'the-cancel', C: 'mine' });
    // any other report keeps the order's own id in c
    expect(userDataEvents(order({ ids: { order: 3, trade: -1, cancel: 'ignored' } }), 9)[0]).toMatchObject({ x: 'NEW', c: 'mine', C: '' });
  });

  it('gives the expiry reason of an IOC rest and of a MARKET order the book could not fill', () => {
    expect(userDataEvents(order({ execution: 'EXPIRED', status: 'EXPIRED' }), 7)[0]).toMatchObject({ x: 'EXPIRED', eR: 'UNFILLED_IOC_QUANTITY_EXPIRED' });
    const market = userDataEvents(order({ execution: 'EXPIRED', status: 'EXPIRED', orderType: 'MARKET', timeInForce: null, price: null }), 7)[0];
    expect(market).toMatchObject({ o: 'MARKET', f: 'GTC', p: '0.00000000', eR: 'INSUFFICIENT_LIQUIDITY', w: false });
  });

  it('reports a taker fill with its trade and quote amounts', () => {
    const fill = {
      tradeId: 'o-1-1',
      price: '101.0000000000',
      qty: '0.2000000000',
      quoteQty: '20.2000000000',
      commission: '0.0202000000',
      commissionAsset: 'USDT' as const,
      liquidity: 'TAKER' as const,
      bookTs: 1500,
      time: 1999,
    };
    const [report] = userDataEvents(
      order({ execution: 'TRADE', status: 'PARTIALLY_FILLED', timeInForce: 'GTC', executedQty: '0.2000000000', lastFill: fill, ids: { order: 3, trade: 5 } }),
      7,
    );
    expect(report).toMatchObject({ x: 'TRADE', X: 'PARTIALLY_FILLED', l: '0.20000000', L: '101.00000000', Y: '20.20000000', n: '0.02020000', N: 'USDT' });
    expect(report).toMatchObject({ i: 3, t: 5, T: 1999, m: false, w: true, W: 1000 });
  });

  it('makes a withdrawal a negative balanceUpdate, and a native market order fill nothing', () => {
    const cash: AccountEvent = { type: 'cash', seq: 1, accountId: 'acc', entry: 'WITHDRAWAL', asset: 'USDT', amount: '-12.5000000000', reason: null, time: 5 };
    expect(userDataEvents(cash, 7)).toEqual([{ e: 'balanceUpdate', E: 5, a: 'USDT', d: '-12.50000000', T: 5 }]);
    const fill: AccountEvent = {
      type: 'fill',
      seq: 2,
      accountId: 'acc',
      orderId: 'n-1',
      symbol: 'SOLUSDT',
      side: 'BUY',
      price: '150.0000000000',
      qty: '1.0000000000',
      gross: '150.0000000000',
      time: 6,
    };
    expect(userDataEvents(fill, 7)).toEqual([]);
  });
});

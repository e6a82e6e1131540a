import { describe, expect, it } from 'vitest';
import { dec } from '../../machines/exchange/money.ts';
import { failedFilter } from './filters.ts';
import { SYMBOL_RULES } from './symbols.ts';

const BTC = SYMBOL_RULES.BTCUSDT;
const limit = (price: string, quantity: string) => ({ type: 'LIMIT' as const, price: dec(price), quantity: dec(quantity) });

describe("Binance's symbol filters", () => {
  it('passes orders on tick and step within the bounds and above the minimum notional', () => {
    expect(failedFilter(BTC, limit('97000.01', '0.00100'))).toBeNull();
    expect(failedFilter(BTC, { type: 'MARKET', quantity: dec('0.001'), referencePrice: dec('97000') })).toBeNull();
    expect(failedFilter(BTC, { type: 'MARKET', quoteOrderQty: dec('10') })).toBeNull();
  });

  it('names the first filter an order fails', () => {
    expect(failedFilter(BTC, limit('97000.005', '0.001'))).toBe('PRICE_FILTER');
    expect(failedFilter(BTC, limit('0.001', '1'))).toBe('PRICE_FILTER');
    expect(failedFilter(BTC, limit('2000000', '0.001'))).toBe('PRICE_FILTER');
    expect(failedFilter(BTC, limit('97000', '0.000015'))).toBe('LOT_SIZE');
    expect(failedFilter(BTC, limit('97000', '0.000001'))).toBe('LOT_SIZE');
    expect(failedFilter(BTC, limit('97000', '9001'))).toBe('LOT_SIZE');
    expect(failedFilter(BTC, { type: 'MARKET', quantity: dec('200'), referencePrice: dec('97000') })).toBe('MARKET_LOT_SIZE');
    expect(failedFilter(BTC, limit('100', '0.01'))).toBe('NOTIONAL');
    expect(failedFilter(BTC, { type: 'MARKET', quoteOrderQty: dec('4.99') })).toBe('NOTIONAL');
    expect(failedFilter(BTC, limit('999999.99', '9.5'))).toBe('NOTIONAL');
  });
});

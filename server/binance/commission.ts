/**
 * An account's commission rates as Binance's `account` and `order/test` show them
 * (docs/exchange-api.md#binance-account): the maker rate prices fills of resting orders, the
 * taker rate every fill that takes (docs/orders.md#fees); 8 fraction digits, and in basis points.
 */
import type { AccountRecord } from '../../adapters/store/exchange/port.ts';
import { fmt } from '../../machines/exchange/money.ts';

/** Maker and taker rates, as decimal strings and in basis points. */
export function commissionRatesOf(account: AccountRecord) {
  const maker = account.makerFeeRate ?? account.feeRate;
  const taker = account.feeRate;
  const bips = (d: typeof maker): number => d.times(10_000).toDecimalPlaces(0).toNumber();
  return { maker: fmt(maker, 8), taker: fmt(taker, 8), makerBips: bips(maker), takerBips: bips(taker) };
}

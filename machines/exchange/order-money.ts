/**
 * The money of orders that rest (docs/orders.md#locking, docs/orders.md#resting-fills), as pure
 * functions: what a resting BUY locks, and what each of its maker fills costs.
 *
 * A resting order fills at its own limit price, possibly over many book updates. Its fills are
 * priced **cumulatively**: the k-th fill's gross is round(price x filled after) - round(price x
 * filled before), and its fee likewise on the cumulative gross. The fills of an order therefore add
 * up to exactly round(price x qty) + fee, which is what the order locked: the lock is always enough,
 * and a filled order has nothing left locked.
 */
import { tradeFee } from './ledger.ts';
import { type Decimal, toMoney } from './money.ts';

/** Cash a BUY resting `qty` at `price` locks: its gross rounded to 10 digits plus the maker fee on it. */
export function buyReserve(price: Decimal, qty: Decimal, makerRate: Decimal): Decimal {
  const gross = toMoney(price.times(qty));
  return gross.plus(tradeFee(gross, makerRate));
}

/** Gross and fee of a maker fill of `qty` at `price`, after `filledBefore` filled while resting. */
export function makerFill(price: Decimal, filledBefore: Decimal, qty: Decimal, makerRate: Decimal): { gross: Decimal; fee: Decimal } {
  const before = toMoney(price.times(filledBefore));
  const after = toMoney(price.times(filledBefore.plus(qty)));
  return { gross: after.minus(before), fee: tradeFee(after, makerRate).minus(tradeFee(before, makerRate)) };
}

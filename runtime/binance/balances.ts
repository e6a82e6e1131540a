/**
 * An account's balances as Binance's `account` lists them (docs/exchange-api.md#binance-account):
 * one `{asset, free, locked}` per asset, USDT first. Cash is the USDT balance and a position the
 * balance of its base asset; what open orders hold is `locked` (`lockedOf`), the rest `free`.
 */
import type { Balances } from '../../machines/exchange/ledger.ts';
import { type Decimal, fmt, ZERO } from '../../machines/exchange/money.ts';
import { BOOK_SYMBOLS } from '../../kernel/domain.ts';
import { SYMBOL_RULES } from './symbols.ts';

/** One asset's balance, 8 fraction digits as Binance writes them. */
export interface AssetBalance {
  asset: string;
  free: string;
  locked: string;
}

/** The amount of `asset` held by open orders (docs/orders.md#locking): the one place `locked` comes from. */
export function lockedOf(balances: Balances, asset: string): Decimal {
  if (asset === 'USDT') return balances.cashLocked;
  const symbol = BOOK_SYMBOLS.find((s) => SYMBOL_RULES[s].baseAsset === asset);
  return (symbol && balances.positions[symbol]?.locked) ?? ZERO;
}

/** Rounds down to 8 digits: a balance is never shown larger than it is. */
const down8 = (d: Decimal): string => fmt(d.toDecimalPlaces(8, 1), 8);

/** Every asset's balance, USDT first, then BTC, ETH, SOL. */
export function assetBalances(balances: Balances): AssetBalance[] {
  const total: [string, Decimal][] = [
    ['USDT', balances.cash],
    ...BOOK_SYMBOLS.map((s): [string, Decimal] => [SYMBOL_RULES[s].baseAsset, balances.positions[s]?.qty ?? ZERO]),
  ];
  return total.map(([asset, held]) => {
    const locked = lockedOf(balances, asset);
    return { asset, free: down8(held.minus(locked)), locked: down8(locked) };
  });
}

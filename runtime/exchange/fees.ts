/**
 * An account's fee rates (docs/exchange-api.md#fees), an extension of the spec: the taker rate
 * `feeRate` (the native market order's, and every fill that takes) and the maker rate of fills of
 * resting orders (docs/orders.md#fees), read and set through the native API.
 */
import { ok, refuse } from '../../kernel/refusal.ts';
import type { AccountRecord } from '../../adapters/store/exchange/port.ts';
import { fmt, type Decimal } from '../../machines/exchange/money.ts';
import type { ExchangeContext } from './context.ts';
import type { Outcome } from './outcome.ts';

/** The rates as the native API answers them (10 fraction digits). */
export interface FeesView {
  accountId: string;
  feeRate: string;
  makerFeeRate: string;
}

const view = (a: AccountRecord): FeesView => ({ accountId: a.id, feeRate: fmt(a.feeRate), makerFeeRate: fmt(a.makerFeeRate ?? a.feeRate) });
const notFound = (id: string) => refuse('ACCOUNT_NOT_FOUND' as const, `account ${id} does not exist`);

/** GET /api/v1/accounts/{id}/fees. */
export async function readFees(ctx: ExchangeContext, id: string): Promise<Outcome<FeesView>> {
  const loaded = await ctx.store.load(id);
  return loaded ? ok(view(loaded.bundle.account)) : notFound(id);
}

/** PUT /api/v1/accounts/{id}/fees: sets either rate or both; orders placed from now on use them. */
export async function setFees(ctx: ExchangeContext, id: string, change: { feeRate?: Decimal; makerFeeRate?: Decimal }): Promise<Outcome<FeesView>> {
  const loaded = await ctx.store.load(id);
  if (!loaded) return notFound(id);
  const a = loaded.bundle.account;
  const fees = { feeRate: change.feeRate ?? a.feeRate, makerFeeRate: change.makerFeeRate ?? a.makerFeeRate ?? a.feeRate };
  if (!(await ctx.store.setFees(id, fees))) return notFound(id);
  ctx.log.info({ accountId: id, feeRate: fmt(fees.feeRate), makerFeeRate: fmt(fees.makerFeeRate) }, 'fee rates set');
  return ok(view({ ...a, ...fees }));
}

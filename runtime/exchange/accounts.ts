/**
 * Account operations: open, read with totals, deposit/withdraw, set cash, equity curve, positions,
 * history, delete (docs/exchange-api.md#accounts). Every change of cash goes through a journal
 * entry in the same commit (docs/exchange-api.md#conventions).
 */
import { randomUUID } from 'node:crypto';
import type { AccountBundle, EquityPoint, OrderRecord } from '../../adapters/store/exchange/port.ts';
import { serialPerAccount } from './account-queue.ts';
import type { ExchangeContext } from './context.ts';
import { applyCashMovement, freeCash, openingBalances, type Balances } from '../../machines/exchange/ledger.ts';
import { type Decimal, fmt } from '../../machines/exchange/money.ts';
import { ok, refuse } from '../../kernel/refusal.ts';
import { retryOnConflict, type Outcome } from './outcome.ts';
import { valueAccount, type Totals } from './valuation.ts';
import { accountTotalsView, accountView, equityPointOf, pnlView, positionView } from './views.ts';

const notFound = (id: string) => refuse('ACCOUNT_NOT_FOUND' as const, `account ${id} does not exist`);

/** Totals of an account at the current bids. */
export const totalsOf = (ctx: ExchangeContext, bundle: AccountBundle, balances: Balances = bundle.balances): Totals =>
  valueAccount(balances, bundle.account.initialCash, ctx.books.bids());

/**
 * Opens an account (POST /accounts, docs/exchange-api.md#open): journals the initial cash and records a first equity point.
 * `feeRate` is the taker rate; `makerFeeRate` (default: `feeRate`) prices fills of resting orders (docs/orders.md#fees).
 */
export async function openAccount(
  ctx: ExchangeContext,
  name: string,
  initialCash: Decimal,
  feeRate: Decimal,
  makerFeeRate?: Decimal,
): Promise<Outcome<ReturnType<typeof accountView>>> {
  const now = ctx.now();
  const account = {
    id: randomUUID(),
    name,
    baseCurrency: 'USDT' as const,
    initialCash,
    feeRate,
    ...(makerFeeRate === undefined ? {} : { makerFeeRate }),
    createdAt: now.toISOString(),
  };
  const balances = openingBalances(initialCash);
  const point = equityPointOf(now, balances, valueAccount(balances, initialCash, {}));
  const out = await ctx.store.createAccount(account, balances, { type: 'OPEN', ts: account.createdAt, amount: initialCash.toFixed() }, point);
  if (out === 'name_taken') return refuse('NAME_TAKEN', `an account named ${JSON.stringify(name)} already exists`);
  ctx.log.info({ accountId: account.id, name, initialCash: fmt(initialCash) }, 'account opened');
  return ok(accountView(account, balances));
}

/** One account with totals. */
export async function readAccount(ctx: ExchangeContext, id: string): Promise<Outcome<ReturnType<typeof accountTotalsView>>> {
  const loaded = await ctx.store.load(id);
  if (!loaded) return notFound(id);
  const { account, balances } = loaded.bundle;
  return ok(accountTotalsView(account, balances, totalsOf(ctx, loaded.bundle)));
}

/** Every account with totals, oldest first (accounts deleted meanwhile are skipped). */
export async function listAccounts(ctx: ExchangeContext): Promise<ReturnType<typeof accountTotalsView>[]> {
  const ids = await ctx.store.listAccountIds();
  const out: ReturnType<typeof accountTotalsView>[] = [];
  for (const id of ids) {
    const r = await readAccount(ctx, id);
    if (r.ok) out.push(r.value);
  }
  return out;
}

/** GET /accounts/{id}/pnl (docs/exchange-api.md#totals-and-pnl). */
export async function readPnl(ctx: ExchangeContext, id: string): Promise<Outcome<ReturnType<typeof pnlView>>> {
  const loaded = await ctx.store.load(id);
  if (!loaded) return notFound(id);
  return ok(pnlView(loaded.bundle.account, totalsOf(ctx, loaded.bundle)));
}

/** GET /accounts/{id}/positions (docs/exchange-api.md#positions): held positions, and closed ones that realized PnL. */
export async function readPositions(ctx: ExchangeContext, id: string): Promise<Outcome<ReturnType<typeof positionView>[]>> {
  const loaded = await ctx.store.load(id);
  if (!loaded) return notFound(id);
  return ok(Object.values(loaded.bundle.balances.positions).map(positionView));
}

/** GET /accounts/{id}/orders, newest first (docs/exchange-api.md#history). */
export async function readOrders(ctx: ExchangeContext, id: string, limit: number): Promise<Outcome<OrderRecord[]>> {
  if (!(await ctx.store.load(id))) return notFound(id);
  return ok(await ctx.store.orders(id, limit));
}

/** The wire body of a deposit or withdrawal. */
export interface CashMovementView {
  accountId: string;
  type: 'DEPOSIT' | 'WITHDRAWAL' | 'CASH_SET';
  amount: string;
  reason: string | null;
  cash: string;
  netDeposits: string;
  ts: string;
}

/**
 * Moves cash by `delta` with a journal entry of `type` (a withdrawal or a cash target never takes
 * cash below zero, nor below what open orders hold: no leverage, docs/exchange-api.md#deposits-and-withdrawals,
 * docs/orders.md#locking). Nothing is written when delta is zero.
 */
async function moveCash(
  ctx: ExchangeContext,
  id: string,
  type: CashMovementView['type'],
  delta: (cash: Decimal) => Decimal,
  reason: string | undefined,
): Promise<Outcome<CashMovementView>> {
  return serialPerAccount(ctx.store, id, () =>
    retryOnConflict(async () => {
      const loaded = await ctx.store.load(id);
      if (!loaded) return notFound(id);
      const { bundle } = loaded;
      const d = delta(bundle.balances.cash);
      const now = ctx.now();
      const kind: CashMovementView['type'] = type === 'CASH_SET' ? type : d.isNegative() ? 'WITHDRAWAL' : 'DEPOSIT';
      const view = (b: Balances): CashMovementView => ({
        accountId: id,
        type: kind,
        amount: fmt(d),
        reason: reason ?? null,
        cash: fmt(b.cash),
        netDeposits: fmt(b.netDeposits),
        ts: now.toISOString(),
      });
      if (d.isZero()) return ok(view(bundle.balances));
      if (freeCash(bundle.balances).plus(d).isNegative()) {
        return refuse('INSUFFICIENT_FUNDS', `free cash ${fmt(freeCash(bundle.balances))} cannot cover a withdrawal of ${fmt(d.neg())}`);
      }
      const balances = applyCashMovement(bundle.balances, d);
      const entry = { type: kind, ts: now.toISOString(), amount: d.toFixed(), ...(reason === undefined ? {} : { reason }) };
      const out = await ctx.store.commit(id, bundle.version, {
        balances,
        journal: [entry],
        equityPoint: equityPointOf(now, balances, totalsOf(ctx, bundle, balances)),
      });
      if (out === 'conflict') return 'conflict';
      if (out === 'missing') return notFound(id);
      ctx.log.info({ accountId: id, type: kind, amount: fmt(d), reason }, 'cash moved');
      return ok(view(balances));
    }),
  );
}

/** POST /accounts/{id}/deposits (docs/exchange-api.md#deposits-and-withdrawals): positive deposits, negative withdraws. */
export const depositCash = (ctx: ExchangeContext, id: string, amount: Decimal, reason?: string) => moveCash(ctx, id, 'DEPOSIT', () => amount, reason);

/** PUT /accounts/{id}/cash (docs/exchange-api.md#set-cash): journals target - cash; an equal target writes nothing. */
export const setCash = (ctx: ExchangeContext, id: string, target: Decimal, reason?: string) =>
  moveCash(ctx, id, 'CASH_SET', (cash) => target.minus(cash), reason);

/** GET /accounts/{id}/equity (docs/exchange-api.md#equity-curve); `snapshot` first records a point now. */
export async function readEquity(ctx: ExchangeContext, id: string, sinceMs: number, snapshot: boolean): Promise<Outcome<EquityPoint[]>> {
  if (snapshot) {
    const recorded = await serialPerAccount(ctx.store, id, () =>
      retryOnConflict(async () => {
        const loaded = await ctx.store.load(id);
        if (!loaded) return 'missing' as const;
        const { bundle } = loaded;
        const point = equityPointOf(ctx.now(), bundle.balances, totalsOf(ctx, bundle));
        return ctx.store.commit(id, bundle.version, { balances: bundle.balances, journal: [], equityPoint: point });
      }),
    );
    if (recorded === 'missing') return notFound(id);
  } else if (!(await ctx.store.load(id))) {
    return notFound(id);
  }
  return ok(await ctx.store.equity(id, sinceMs));
}

/** DELETE /accounts/{id} (docs/exchange-api.md#read-list-delete): removes the account with everything it owns. */
export async function deleteAccount(ctx: ExchangeContext, id: string): Promise<Outcome<null>> {
  if (!(await ctx.store.deleteAccount(id))) return notFound(id);
  ctx.log.info({ accountId: id }, 'account deleted');
  return ok(null);
}

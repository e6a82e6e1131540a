/**
 * Request schemas of the exchange API (docs/exchange-api.md), declared once for the
 * server and the tests. Every number arrives as a decimal string; a JSON number is refused.
 */
import * as v from 'valibot';

import { dec } from '../../machines/exchange/money.ts';
import { BOOK_SYMBOLS } from '../../kernel/domain.ts';

/** A plain decimal string with at most 10 fraction digits (the ledger's precision). */
export const DecimalString = v.pipe(
  v.string('must be a decimal string'),
  v.maxLength(40, 'is too long'),
  v.regex(/^-?\d+(\.\d{1,10})?$/, 'must be a decimal string with at most 10 fraction digits'),
);

/** A decimal-string check that is false (not a crash) when an earlier pipe step already failed. */
const decimalIs =
  (test: (d: ReturnType<typeof dec>) => boolean) =>
  (s: string): boolean => {
    try {
      return test(dec(s));
    } catch {
      return false;
    }
  };

const positive = v.pipe(
  DecimalString,
  v.check(
    decimalIs((d) => d.gt(0)),
    'must be greater than 0',
  ),
);
const reason = v.optional(v.pipe(v.string('must be a string'), v.maxLength(500, 'is too long')));

/** POST /accounts. */
export const CreateAccountBody = v.object({
  name: v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(100, 'is too long')),
  initialCash: positive,
  feeRate: v.optional(
    v.pipe(
      DecimalString,
      v.check(
        decimalIs((d) => d.gte(0) && d.lt(1)),
        'must be >= 0 and < 1',
      ),
    ),
    '0.001',
  ),
});

/** POST /accounts/{id}/deposits: positive deposits, negative withdraws. */
export const DepositBody = v.object({
  amount: v.pipe(
    DecimalString,
    v.check(
      decimalIs((d) => !d.isZero()),
      'must not be zero',
    ),
  ),
  reason,
});

/** PUT /accounts/{id}/cash. */
export const SetCashBody = v.object({
  target: v.pipe(
    DecimalString,
    v.check(
      decimalIs((d) => d.gte(0)),
      'must not be negative',
    ),
  ),
  reason,
});

/** POST /accounts/{id}/orders. */
export const OrderBody = v.object({
  symbol: v.picklist(BOOK_SYMBOLS, `must be one of ${BOOK_SYMBOLS.join(', ')}`),
  side: v.picklist(['BUY', 'SELL'], 'must be BUY or SELL'),
  qty: positive,
});

/** The optional Idempotency-Key header. */
export const IdempotencyKey = v.pipe(v.string(), v.minLength(1), v.maxLength(200, 'Idempotency-Key is longer than 200 characters'));

/** GET /accounts/{id}/orders?limit (default 100, docs/exchange-api.md#history). */
export const OrderLimit = v.pipe(
  v.optional(v.string(), '100'),
  v.regex(/^\d{1,4}$/, 'limit must be an integer from 1 to 1000'),
  v.transform(Number),
  v.minValue(1, 'limit must be an integer from 1 to 1000'),
  v.maxValue(1000, 'limit must be an integer from 1 to 1000'),
);

/** GET /accounts/{id}/equity?since (ISO 8601 time). Absent: the whole curve. */
export const EquitySince = v.pipe(
  v.optional(v.string()),
  v.check((s) => s === undefined || (/^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s))), 'since must be an ISO 8601 time'),
  v.transform((s) => (s === undefined ? -Infinity : Date.parse(s))),
);

/** GET /accounts/{id}/equity?snapshot (boolean). */
export const EquitySnapshot = v.pipe(
  v.optional(v.picklist(['true', 'false'], 'snapshot must be true or false'), 'false'),
  v.transform((s) => s === 'true'),
);

/** First validation issue as a readable sentence naming the field. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  const first = issues[0];
  if (!first) return 'invalid request';
  const path = first.path?.map((p) => String(p.key)).join('.');
  return path ? `${path}: ${first.message}` : first.message;
}

// Response bodies (docs/exchange-api.md). Strict: a field that is not in the contract, or any number, fails.
const Money = v.pipe(v.string(), v.regex(/^-?\d+\.\d{10}$/, 'must be a decimal string with 10 fraction digits'));
const Price8 = v.pipe(v.string(), v.regex(/^\d+\.\d{8}$/, 'must be a decimal string with 8 fraction digits'));
const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const Uuid = v.pipe(v.string(), v.uuid());
const Symbol = v.picklist(BOOK_SYMBOLS);
const Side = v.picklist(['BUY', 'SELL']);

/** The price object (docs/exchange-api.md#prices). */
export const PriceView = v.strictObject({ symbol: Symbol, bid: Price8, ask: Price8, ts: IsoTime });

/** The account (docs/exchange-api.md#open). */
export const AccountView = v.strictObject({
  id: Uuid,
  name: v.string(),
  baseCurrency: v.literal('USDT'),
  initialCash: Money,
  cash: Money,
  feeRate: Money,
  createdAt: IsoTime,
});

/** An account with totals (docs/exchange-api.md#read-list-delete). */
export const AccountTotalsView = v.strictObject({
  id: Uuid,
  name: v.string(),
  cash: Money,
  positionsValue: Money,
  equity: Money,
  netDeposits: Money,
  pnl: Money,
  pnlPct: Money,
  realizedPnl: Money,
  unrealizedPnl: Money,
});

/** GET /accounts/{id}/pnl (docs/exchange-api.md#totals-and-pnl). */
export const PnlView = v.strictObject({
  initialCash: Money,
  netDeposits: Money,
  equity: Money,
  pnl: Money,
  pnlPct: Money,
  realizedPnl: Money,
  unrealizedPnl: Money,
});

/** A position (docs/exchange-api.md#positions). */
export const PositionView = v.strictObject({ symbol: Symbol, qty: Money, avgCost: Money, realizedPnl: Money });

/** The order result (docs/exchange-api.md#place); `qty` is the filled quantity, `requestedQty` what was asked. */
export const OrderResultView = v.strictObject({
  orderId: Uuid,
  status: v.picklist(['FILLED', 'PARTIALLY_FILLED']),
  symbol: Symbol,
  side: Side,
  qty: Money,
  requestedQty: Money,
  price: Money,
  gross: Money,
  fee: Money,
  cash: Money,
  positionQty: Money,
});

/** One book level taken by an order. */
export const FillView = v.strictObject({ price: Money, qty: Money, gross: Money });

/** An order record (docs/exchange-api.md#history), with nested fills. */
export const OrderRecordView = v.strictObject({
  ...OrderResultView.entries,
  accountId: Uuid,
  idempotencyKey: v.nullable(v.string()),
  createdAt: IsoTime,
  fills: v.array(FillView),
});

/** An equity point (docs/exchange-api.md#equity-curve). */
export const EquityPointView = v.strictObject({ ts: IsoTime, cash: Money, positionsValue: Money, equity: Money, realizedPnl: Money, unrealizedPnl: Money });

/** Answer of a deposit, withdrawal or cash target. */
export const CashMovementView = v.strictObject({
  accountId: Uuid,
  type: v.picklist(['DEPOSIT', 'WITHDRAWAL', 'CASH_SET']),
  amount: Money,
  reason: v.nullable(v.string()),
  cash: Money,
  netDeposits: Money,
  ts: IsoTime,
});

/** The error body (docs/exchange-api.md#errors). */
export const ErrorView = v.strictObject({ error: v.string(), message: v.string() });

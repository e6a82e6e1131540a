/**
 * Plain-JSON forms of the exchange ledger's values (decimals as strings), shared by the stores
 * that keep them as text: the Redis hashes and the embedded journal file. Parsing validates
 * with valibot, so a damaged record stops a load instead of turning into wrong balances.
 *
 * @example
 *   const text = JSON.stringify(balancesToJson(balances));
 *   const back = balancesFromJson(JSON.parse(text));
 */
import * as v from 'valibot';

import type { Balances, PositionState } from '../../../machines/exchange/ledger.ts';
import { dec } from '../../../machines/exchange/money.ts';
import type { AccountRecord, LedgerCommit } from './port.ts';
import { BOOK_SYMBOLS } from '../../../kernel/domain.ts';

export const DecimalText = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/));

// `locked` and `cashLocked` are absent from records written before orders could rest: zero
export const PositionJson = v.object({ qty: DecimalText, costBasis: DecimalText, realizedPnl: DecimalText, locked: v.optional(DecimalText, '0') });
export type PositionJson = v.InferOutput<typeof PositionJson>;

export const BalancesJson = v.object({
  cash: DecimalText,
  cashLocked: v.optional(DecimalText, '0'),
  netDeposits: DecimalText,
  feesPaid: DecimalText,
  positions: v.record(v.picklist(BOOK_SYMBOLS), PositionJson),
});
export type BalancesJson = v.InferOutput<typeof BalancesJson>;

export const AccountJson = v.object({
  id: v.string(),
  name: v.string(),
  baseCurrency: v.literal('USDT'),
  initialCash: DecimalText,
  feeRate: DecimalText,
  makerFeeRate: v.optional(DecimalText),
  createdAt: v.string(),
});
export type AccountJson = v.InferOutput<typeof AccountJson>;

export const positionToJson = (p: PositionState): PositionJson => ({
  qty: p.qty.toFixed(),
  costBasis: p.costBasis.toFixed(),
  realizedPnl: p.realizedPnl.toFixed(),
  locked: p.locked.toFixed(),
});

export function balancesToJson(b: Balances): BalancesJson {
  const positions: BalancesJson['positions'] = {};
  for (const p of Object.values(b.positions)) if (p) positions[p.symbol] = positionToJson(p);
  return { cash: b.cash.toFixed(), cashLocked: b.cashLocked.toFixed(), netDeposits: b.netDeposits.toFixed(), feesPaid: b.feesPaid.toFixed(), positions };
}

export function positionsFromJson(json: BalancesJson['positions']): Balances['positions'] {
  const out: Balances['positions'] = {};
  for (const symbol of BOOK_SYMBOLS) {
    const p = json[symbol];
    if (p) out[symbol] = { symbol, qty: dec(p.qty), costBasis: dec(p.costBasis), realizedPnl: dec(p.realizedPnl), locked: dec(p.locked) };
  }
  return out;
}

export function balancesFromJson(raw: unknown): Balances {
  const b = v.parse(BalancesJson, raw);
  return {
    cash: dec(b.cash),
    cashLocked: dec(b.cashLocked),
    netDeposits: dec(b.netDeposits),
    feesPaid: dec(b.feesPaid),
    positions: positionsFromJson(b.positions),
  };
}

export const accountToJson = ({ makerFeeRate, ...a }: AccountRecord): AccountJson => ({
  ...a,
  initialCash: a.initialCash.toFixed(),
  feeRate: a.feeRate.toFixed(),
  ...(makerFeeRate === undefined ? {} : { makerFeeRate: makerFeeRate.toFixed() }),
});

export function accountFromJson(raw: unknown): AccountRecord {
  const a = v.parse(AccountJson, raw);
  const { makerFeeRate, ...rest } = a;
  return { ...rest, initialCash: dec(a.initialCash), feeRate: dec(a.feeRate), ...(makerFeeRate === undefined ? {} : { makerFeeRate: dec(makerFeeRate) }) };
}

/** A ledger commit as JSON: the balances as strings, everything else is already plain. */
export type LedgerCommitJson = Omit<LedgerCommit, 'balances'> & { balances: BalancesJson };

export const commitToJson = (c: LedgerCommit): LedgerCommitJson => ({ ...c, balances: balancesToJson(c.balances) });

export function commitFromJson(raw: LedgerCommitJson): LedgerCommit {
  return { ...raw, balances: balancesFromJson(raw.balances) };
}

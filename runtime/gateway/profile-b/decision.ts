/**
 * Profile B rules (docs/gateway-api.md#profile-b-post-apibet): the stake amount, and the one
 * decision code path shared by `POST /bet` and `GET /state` (`canBet*`), so the two can never
 * disagree.
 */
import { refuse, type Refusal as KernelRefusal } from '../../../kernel/refusal.ts';

/** Refusal codes in the priority order in which they are checked (the first match wins). */
export const REFUSAL_CODES = ['NOT_INITIALIZED', 'PAUSED', 'NO_PRICE', 'OPEN_BET', 'WALLET_UNKNOWN', 'INSUFFICIENT_SOL', 'INSUFFICIENT_FUNDS'] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

/** Human-readable refusal texts, in Russian (`reason`, `canBetReason`: docs/gateway-api.md#refusal-codes-profile-b). */
export const REFUSAL_TEXT: Record<RefusalCode, string> = {
  NOT_INITIALIZED: 'Контракт не инициализирован',
  PAUSED: 'Приём ставок приостановлен',
  NO_PRICE: 'Нет актуальной цены SOL: котировки ещё не поступали или устарели',
  OPEN_BET: 'У игрока уже есть открытая ставка: дождитесь её расчёта',
  WALLET_UNKNOWN: 'Кошелёк игрока не найден в хранилище ключей шлюза',
  INSUFFICIENT_SOL: 'Недостаточно SOL для оплаты комиссии (нужно не меньше 0.01 SOL)',
  INSUFFICIENT_FUNDS: 'Недостаточно токенов для минимальной ставки',
};

/** Minimum coin balance for a Profile B bet (`INSUFFICIENT_SOL`, docs/gateway-api.md#refusal-codes-profile-b). */
export const MIN_LAMPORTS = 10_000_000n;

/**
 * floor(tokenBalance * percent / 100) in integer arithmetic, clamped to [min, max];
 * `min` when the balance is zero or unparsable.
 */
export function betAmount(tokenBalance: bigint | string | null | undefined, percent: number, min: bigint, max: bigint): bigint {
  let balance: bigint | null = null;
  if (typeof tokenBalance === 'bigint') balance = tokenBalance;
  else if (typeof tokenBalance === 'string' && /^\d+$/.test(tokenBalance)) balance = BigInt(tokenBalance);
  if (balance === null || balance <= 0n) return min;
  const raw = (balance * BigInt(percent)) / 100n;
  if (raw < min) return min;
  if (raw > max) return max;
  return raw;
}

/** What the decision needs to know, gathered by the runtime (chain reads, price state, key store). */
export interface DecisionFacts {
  initialized: boolean;
  paused: boolean;
  /** a usable (fresh) price tick exists */
  hasPrice: boolean;
  /** the fixed bettor's open bet, with its expireTime (unix seconds), or null */
  openBet: { id: bigint; expireTime: bigint } | null;
  walletKnown: boolean;
  lamports: bigint;
  tokenUnits: bigint | null;
  minAmount: bigint;
}

/** A refusal of a Profile B bet: its Russian text is the message; an open bet gives its id and when to retry. */
export type Refusal = KernelRefusal<RefusalCode, { retryAfterSeconds: number | null; openBetId?: bigint }>;
export type Decision = { ok: true } | Refusal;

/** ceil((expireTime*1000 - now)/1000), minimum 0 (`retryAfterSeconds` of an open bet, docs/gateway-api.md#state). */
export function retryAfterSeconds(expireTime: bigint, nowMs: number): number {
  const ms = Number(expireTime) * 1000 - nowMs;
  return Math.max(0, Math.ceil(ms / 1000));
}

/** A refusal with its Russian text. */
export const refusalB = (code: RefusalCode, retryAfter: number | null = null): Refusal => refuse(code, REFUSAL_TEXT[code], { retryAfterSeconds: retryAfter });

/** The first matching refusal in the priority order of docs/gateway-api.md#refusal-codes-profile-b, or ok. */
export function decide(f: DecisionFacts, nowMs: number): Decision {
  if (!f.initialized) return refusalB('NOT_INITIALIZED');
  if (f.paused) return refusalB('PAUSED');
  if (!f.hasPrice) return refusalB('NO_PRICE');
  if (f.openBet)
    return refuse('OPEN_BET', REFUSAL_TEXT.OPEN_BET, { retryAfterSeconds: retryAfterSeconds(f.openBet.expireTime, nowMs), openBetId: f.openBet.id });
  if (!f.walletKnown) return refusalB('WALLET_UNKNOWN');
  if (f.lamports < MIN_LAMPORTS) return refusalB('INSUFFICIENT_SOL');
  if (f.tokenUnits === null || f.tokenUnits < f.minAmount) return refusalB('INSUFFICIENT_FUNDS');
  return { ok: true };
}

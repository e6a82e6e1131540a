/** Response shapes of docs/gateway-api.md#state, built from chain reads. */
import type { BetAccount, ContractConfig } from '../../../adapters/chain/port.ts';
import { retryAfterSeconds } from '../profile-b/decision.ts';
import { formatHuman } from './units.ts';
import type { BetStatus } from '../../../kernel/domain.ts';

/** The name of a closed bet's status. */
const CLOSED_NAME = { 1: 'payout_done', 2: 'house_won', 3: 'refunded' } as const satisfies Record<Exclude<BetStatus, 0>, string>;

/** Contract-state object (`GET /state`, docs/gateway-api.md#state). */
export function contractStateView(c: ContractConfig, vaultBalance: bigint) {
  return {
    counter: c.counter.toString(),
    nextBetId: c.nextBetId.toString(),
    minAmount: c.minAmount.toString(),
    maxAmount: c.maxAmount.toString(),
    minAmountHuman: formatHuman(c.minAmount),
    maxAmountHuman: formatHuman(c.maxAmount),
    multiplierBps: c.multiplierBps.toString(),
    expirySeconds: c.expirySeconds.toString(),
    paused: c.paused ? (1 as const) : (0 as const),
    admin: c.admin,
    relayer: c.relayer,
    vaultBalance: vaultBalance.toString(),
    vaultBalanceHuman: formatHuman(vaultBalance),
  };
}

/** Bet object (Profile B, docs/gateway-api.md#state). */
export function betView(b: BetAccount, nowMs: number) {
  const open = b.status === 0;
  return {
    id: b.id.toString(),
    status: open ? ('open' as const) : ('closed' as const),
    statusCode: b.status,
    result: b.status === 0 ? null : CLOSED_NAME[b.status],
    side: b.side,
    amountUnits: b.amount.toString(),
    amountHuman: formatHuman(b.amount),
    entryPrice: Number(b.entryPrice),
    exitPrice: Number(b.exitPrice),
    betTime: Number(b.betTime),
    expireTime: Number(b.expireTime),
    retryAfterSeconds: open ? retryAfterSeconds(b.expireTime, nowMs) : null,
  };
}

/**
 * Selection rule (docs/gateway-api.md#state): an open bet is `openBet` and `lastBet` is null; otherwise
 * `lastBet` is the bet with the highest id; with no bets both are null.
 */
export function selectBets(bets: readonly BetAccount[]): { open: BetAccount | null; last: BetAccount | null } {
  const open = bets.find((b) => b.status === 0) ?? null;
  if (open) return { open, last: null };
  let last: BetAccount | null = null;
  for (const b of bets) if (!last || b.id > last.id) last = b;
  return { open: null, last };
}

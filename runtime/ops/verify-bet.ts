/**
 * Checking a settled bet from the chain and the price signer's key alone (docs/decisions.md#anyone-can-check):
 * the bet account says which prices the contract recorded and how it settled; the signed ticks
 * (from the gateway's evidence, but each signed by the price signer, so not the gateway's word) must
 * show that a trusted signer published exactly those prices by the contract's rules:
 * - entry: a tick of a trusted signer at the bet's entry price, within the contract's entry age of
 *   the bet's time;
 * - exit: ticks n and n+1 of one trusted signer with consecutive numbers, ts(n) <= expiry < ts(n+1),
 *   n at most 30 s before the expiry, and n's price the recorded exit price;
 * - outcome: UP wins above the entry price, DOWN below, a tie refunds; the status must say so.
 * A bet refunded at its entry price (no usable price within 300 s) needs no exit tick.
 *
 * @example
 *   const verdict = verifyBet(decodeBet(account.data), record?.signed, { signers, maxEntryAgeMs: 30_000n });
 *   if (verdict.verdict === 'failed') console.log(verdict.problems);
 */
import type { SignedEvidence, SignedEvidenceTick } from '../../adapters/store/bet-history/port.ts';
import { signatureHolds } from '../../adapters/feed/tick-verify.ts';
import { PRICE_RULES } from '../gateway/prices/rules.ts';
import type { BetStatus, Side } from '../../kernel/domain.ts';

/** What the chain holds of a bet (the decoded bet account). */
export interface ChainBetFacts {
  id: bigint;
  side: Side;
  entryPrice: bigint;
  exitPrice: bigint;
  /** unix s, the chain's clock at placement; null when not known (a bet known only from the history) */
  betTime: bigint | null;
  /** unix s */
  expireTime: bigint;
  status: BetStatus;
}

/** Whose ticks count: price signers with the unix second until which each is trusted, and the entry age rule. */
export interface PriceTrust {
  signers: ReadonlyArray<{ key: string; expiresAt: bigint }>;
  maxEntryAgeMs: bigint;
}

/** The outcome of a check: `open` bets are not settled yet; `failed` lists what did not hold. */
export interface BetVerdict {
  id: string;
  verdict: 'verified' | 'open' | 'failed';
  /** what was checked and held, in words */
  held: string[];
  /** what did not hold, in words */
  problems: string[];
}

/** The exit tick may be at most this much older than the expiry (the spec's 30 s rule, as the contract checks it). */
const MAX_EXIT_TICK_AGE_MS = BigInt(PRICE_RULES.maxTickAgeMs);

/** Why a tick does not count, or null when its signature verifies and its signer was trusted at `atSeconds`. */
function tickProblem(name: string, tick: SignedEvidenceTick, trust: PriceTrust, atSeconds: bigint): string | null {
  if (!signatureHolds({ ...tick, priceE8: BigInt(tick.price) }))
    return `${name}: the signature does not verify (seq ${tick.seq}, ts ${tick.ts}, price ${tick.price})`;
  const signer = trust.signers.find((s) => s.key === tick.signer);
  if (!signer) return `${name}: signer ${tick.signer} is not a trusted price signer`;
  if (signer.expiresAt < atSeconds) return `${name}: signer ${tick.signer} was trusted only until ${signer.expiresAt}`;
  return null;
}

/** The entry tick's checks. */
function checkEntry(bet: ChainBetFacts, tick: SignedEvidenceTick | null, trust: PriceTrust, out: BetVerdict): void {
  if (!tick) return void out.problems.push('no signed entry tick');
  const problem = tickProblem('entry tick', tick, trust, bet.betTime ?? bet.expireTime);
  if (problem) return void out.problems.push(problem);
  if (BigInt(tick.price) !== bet.entryPrice) return void out.problems.push(`entry tick price ${tick.price} is not the recorded entry price ${bet.entryPrice}`);
  const placedMs = (bet.betTime ?? 0n) * 1000n;
  const ts = BigInt(tick.ts);
  if (bet.betTime !== null && (ts < placedMs - trust.maxEntryAgeMs || ts > placedMs + 1000n + trust.maxEntryAgeMs))
    return void out.problems.push(`entry tick ts ${tick.ts} is more than ${trust.maxEntryAgeMs} ms from the bet's time ${bet.betTime}`);
  out.held.push(`entry ${bet.entryPrice} signed by ${tick.signer} (seq ${tick.seq})`);
}

/** The exit pair's checks. */
function checkExit(bet: ChainBetFacts, pair: readonly [SignedEvidenceTick, SignedEvidenceTick] | null, trust: PriceTrust, out: BetVerdict): void {
  if (!pair) return void out.problems.push('no signed exit pair');
  const [n, next] = pair;
  const problem = tickProblem('exit tick', n, trust, bet.expireTime) ?? tickProblem('tick after expiry', next, trust, bet.expireTime);
  if (problem) return void out.problems.push(problem);
  const expiryMs = bet.expireTime * 1000n;
  if (n.signer !== next.signer) return void out.problems.push('the exit pair has two signers');
  if (next.seq !== n.seq + 1) return void out.problems.push(`the exit pair's numbers ${n.seq}, ${next.seq} are not consecutive`);
  if (!(BigInt(n.ts) <= expiryMs && expiryMs < BigInt(next.ts)))
    return void out.problems.push(`the exit pair (ts ${n.ts}, ${next.ts}) does not straddle the expiry ${expiryMs}`);
  if (expiryMs - BigInt(n.ts) > MAX_EXIT_TICK_AGE_MS) return void out.problems.push(`the exit tick is more than 30 s before the expiry`);
  if (BigInt(n.price) !== bet.exitPrice) return void out.problems.push(`exit tick price ${n.price} is not the recorded exit price ${bet.exitPrice}`);
  out.held.push(`exit ${bet.exitPrice} is the last tick at or before expiry (seq ${n.seq}, next ${next.seq})`);
}

/** The status the contract's rule gives a bet at its recorded prices. */
function ruledStatus(bet: ChainBetFacts): BetStatus {
  if (bet.exitPrice === bet.entryPrice) return 3;
  const upWins = bet.exitPrice > bet.entryPrice;
  return upWins === (bet.side === 'UP') ? 1 : 2;
}

/** Checks one bet account against its signed ticks. */
export function verifyBet(bet: ChainBetFacts, signed: SignedEvidence | null | undefined, trust: PriceTrust): BetVerdict {
  const out: BetVerdict = { id: bet.id.toString(), verdict: 'verified', held: [], problems: [] };
  if (bet.status === 0) return { ...out, verdict: 'open' };
  checkEntry(bet, signed?.entry ?? null, trust, out);
  const refundedAtEntry = bet.status === 3 && !signed?.exit;
  if (refundedAtEntry) {
    // a refund returns the stake: no price decided it (a tie carries its pair and is checked below)
    out.held.push('refunded: the stake came back, no exit price decided it');
  } else {
    checkExit(bet, signed?.exit ?? null, trust, out);
    const ruled = ruledStatus(bet);
    if (ruled !== bet.status) out.problems.push(`status ${bet.status} is not what the prices give (${ruled})`);
    else out.held.push(`status ${bet.status} follows from ${bet.side} at ${bet.entryPrice} -> ${bet.exitPrice}`);
  }
  return out.problems.length > 0 ? { ...out, verdict: 'failed' } : out;
}

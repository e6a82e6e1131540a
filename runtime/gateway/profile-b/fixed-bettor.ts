/**
 * Profile B: the gateway bets for one fixed bettor and picks the amount
 * (docs/gateway-api.md#profile-b-post-apibet). `POST /bet` and `GET /state` both go through
 * `readFacts` + `decide`, so `canBet*` and the decision object can never disagree.
 */
import type { PublicKey } from '@solana/web3.js';
import type { BetAccount, ContractConfig } from '../../../adapters/chain/port.ts';
import { onChain } from '../bets/chain-calls.ts';
import { admitted, placeOnChain, type BetDeps } from '../bets/place-bet.ts';
import { betAmount, decide, refusalB, type Decision, type DecisionFacts, type Refusal } from './decision.ts';
import { type GatewayRefusal } from '../refusals.ts';
import { balanceView, formatHuman } from '../views/units.ts';
import { betView, contractStateView, selectBets } from '../views/state.ts';
import type { Side } from '../../../kernel/domain.ts';
import { isRefusal } from '../../../kernel/refusal.ts';

export interface FixedBettorDeps extends BetDeps {
  bettor: PublicKey;
  betPercent: number;
  /** whether the key store holds the fixed bettor's key */
  walletKnown(): Promise<boolean>;
  now(): number;
}

export interface Facts {
  config: ContractConfig | null;
  bets: BetAccount[];
  open: BetAccount | null;
  last: BetAccount | null;
  lamports: bigint;
  tokenUnits: bigint;
  amount: bigint;
  decision: Decision;
}

/** Everything the decision and `/state` need, read once. */
export async function readFacts(deps: FixedBettorDeps): Promise<Facts | GatewayRefusal> {
  const config = await onChain(() => deps.chain.readConfig());
  if (isRefusal(config)) return config;
  const reads = await onChain(() =>
    // without a config there is no mint to read tokens from; the decision is NOT_INITIALIZED anyway
    Promise.all([
      config ? deps.chain.scanBetsOf(deps.bettor) : Promise.resolve([]),
      config ? deps.chain.balances(deps.bettor) : Promise.resolve({ lamports: 0n, tokenUnits: 0n }),
      deps.walletKnown(),
    ]),
  );
  if (isRefusal(reads)) return reads;
  const [bets, balance, walletKnown] = reads;
  const { open, last } = selectBets(bets);
  const min = config?.minAmount ?? 0n;
  const max = config?.maxAmount ?? 0n;
  const facts: DecisionFacts = {
    initialized: config !== null,
    paused: config?.paused ?? false,
    hasPrice: (await deps.entryPrice()) !== null,
    openBet: open ? { id: open.id, expireTime: open.expireTime } : null,
    walletKnown,
    lamports: balance.lamports,
    tokenUnits: balance.tokenUnits,
    minAmount: min,
  };
  return {
    config,
    bets,
    open,
    last,
    lamports: balance.lamports,
    tokenUnits: balance.tokenUnits,
    amount: betAmount(balance.tokenUnits, deps.betPercent, min, max),
    decision: decide(facts, deps.now()),
  };
}

/** `GET /state` for Profile B; null when the contract is not initialised (409). */
export async function fixedBettorState(deps: FixedBettorDeps) {
  const facts = await readFacts(deps);
  if (isRefusal(facts)) return facts;
  if (!facts.config) return null;
  const vault = await onChain(() => deps.chain.vaultBalance());
  if (isRefusal(vault)) return vault;
  const now = deps.now();
  const d = facts.decision;
  return {
    ...contractStateView(facts.config, vault),
    bettor: deps.bettor.toBase58(),
    betPercent: deps.betPercent,
    betAmountUnits: facts.amount.toString(),
    betAmountHuman: formatHuman(facts.amount),
    canBet: d.ok,
    canBetReasonCode: d.ok ? null : d.code,
    canBetReason: d.ok ? null : d.message,
    balance: balanceView(facts.lamports, facts.tokenUnits),
    openBet: facts.open ? betView(facts.open, now) : null,
    lastBet: facts.last ? betView(facts.last, now) : null,
  };
}

/** The decision object of `POST /bet` (Profile B). */
export async function placeFixedBet(deps: FixedBettorDeps, side: Side, keyFor = deps.keyFor) {
  const facts = await readFacts(deps);
  if (isRefusal(facts)) return facts;
  const refused = (d: Refusal) => ({
    accepted: false,
    reasonCode: d.code,
    reason: d.message,
    retryAfterSeconds: d.retryAfterSeconds,
    betId: null,
    txSig: null,
  });
  if (!facts.decision.ok) return refused(facts.decision);
  const key = await keyFor(deps.bettor.toBase58());
  const entryPrice = await deps.entryPrice();
  // The decision saw both a moment ago; a race (key removed, price went stale) refuses the same way.
  if (!key) return refused(refusalB('WALLET_UNKNOWN'));
  if (entryPrice === null) return refused(refusalB('NO_PRICE'));
  const placed = await admitted(deps, () => placeOnChain(deps, { kind: 'signer', bettor: key }, side, facts.amount, entryPrice));
  if (isRefusal(placed)) {
    if (placed.code === 'open_bet' || placed.code === 'forbidden' || placed.code === 'not_initialized') {
      // the chain moved between the decision and the transaction: decide again from fresh facts
      const again = await readFacts(deps);
      if (!isRefusal(again) && !again.decision.ok) return refused(again.decision);
    }
    return placed;
  }
  const { bet, signature } = placed;
  const config = facts.config as ContractConfig;
  return {
    accepted: true,
    reasonCode: null,
    reason: null,
    retryAfterSeconds: Number(config.expirySeconds),
    betId: bet.id.toString(),
    txSig: signature,
    amountUnits: bet.amount.toString(),
    amountHuman: formatHuman(bet.amount),
    side: bet.side,
    entryPrice: Number(bet.entryPrice),
    expireTime: Number(bet.expireTime),
    id: bet.id.toString(),
    tx: signature,
    bettor: bet.bettor,
  };
}

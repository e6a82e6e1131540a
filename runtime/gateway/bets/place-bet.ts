/**
 * Placing a bet, Profile A (docs/gateway-api.md#bet, errors: docs/gateway-api.md#errors). The chain
 * is the truth for "one open bet per address": the program enforces it, and the gateway's checks
 * before placing read the chain mirror (no RPC call); a race the mirror did not see yet comes back
 * as the program's refusal, mapped to the same answer.
 */
import { PublicKey, type Keypair } from '@solana/web3.js';
import { ProgramRefusal, type BetAccount, type BetIntent, type ChainPort, type ContractConfig, type StakeAuthority } from '../../../adapters/chain/port.ts';
import type { PlacementAdmission } from './admission.ts';
import { onChain, placeRefusal } from './chain-calls.ts';
import { MESSAGES, refusal, type GatewayRefusal } from '../refusals.ts';
import type { Side } from '../../../kernel/domain.ts';
import { isRefusal } from '../../../kernel/refusal.ts';

export interface BetDeps {
  chain: ChainPort;
  /** the custodial key of an address, or null when the key store does not hold it */
  keyFor(address: string): Promise<Keypair | null>;
  /** entry price x 1e8 from a fresh tick (the latest, at most 30 s old: docs/decisions.md#entry-and-exit-prices), or null */
  entryPrice(): Promise<bigint | null>;
  /** called once the bet is on chain: emits `bet_open` and starts the bet's actor */
  opened(bet: BetAccount, signature: string): Promise<void>;
  /** how many placements are taken on at once (none: no limit) */
  admission?: PlacementAdmission;
}

/** Runs `place` once admitted (docs/decisions.md#placements-are-admitted-not-queued), or answers the `busy` refusal. */
export const admitted = <T>(deps: BetDeps, place: () => Promise<T | GatewayRefusal>): Promise<T | GatewayRefusal> =>
  deps.admission ? deps.admission.run(place) : place();

export interface BetRequestA {
  address: string;
  side: Side;
  amountUnits: bigint;
  /** the bettor's signed intent: needed when the gateway does not hold the address's key (docs/gateway-api.md#bet-intents) */
  intent?: BetIntent | undefined;
}

/** 200 body of Profile A `POST /bet`. */
export interface PlacedA {
  tx: string;
  id: string;
  bettor: string;
  entryPrice: number;
}

function parseAddress(address: string): PublicKey | null {
  try {
    return new PublicKey(address);
  } catch {
    return null;
  }
}

/**
 * The id of the bettor's open bet after the program refused a placement for it: as held (chain
 * mirror), else read from the chain itself (another gateway placed it a moment ago, and its
 * notification has not come yet); null when the chain says it has closed meanwhile.
 */
async function openBetIdOf(chain: ChainPort, bettor: PublicKey): Promise<string | null | GatewayRefusal> {
  const held = await onChain(() => chain.readBettorState(bettor));
  if (isRefusal(held)) return held;
  if (held?.openBetId != null) return held.openBetId.toString();
  const read = await onChain(() => chain.rereadBettorState(bettor));
  if (isRefusal(read)) return read;
  return read?.openBetId?.toString() ?? null;
}

/** Placements tried when the open bet the program refused for has closed by the time it is looked up. */
const PLACE_ATTEMPTS = 3;

/**
 * Places the stake on chain and reports the opened bet; shared by both profiles once their own
 * checks passed. Program refusals become gateway refusals; an open-bet refusal always names the
 * open bet (`openBetId`, docs/gateway-api.md#errors).
 */
export async function placeOnChain(
  deps: BetDeps,
  stake: StakeAuthority,
  side: Side,
  amount: bigint,
  entryPrice: bigint,
): Promise<{ bet: BetAccount; signature: string } | GatewayRefusal> {
  const bettor = stake.kind === 'signer' ? stake.bettor.publicKey : stake.bettor;
  for (let attempt = 1; ; attempt++) {
    let placed;
    try {
      placed = await onChain(() => deps.chain.placeBet({ stake, side, amount, entryPrice }));
    } catch (err) {
      if (!(err instanceof ProgramRefusal)) throw err;
      const r = placeRefusal(err, stake.kind === 'delegate');
      if (r.code !== 'open_bet') return r;
      const open = await openBetIdOf(deps.chain, bettor);
      if (isRefusal(open)) return open;
      if (open !== null) return refusal('open_bet', MESSAGES.openBet, { openBetId: open });
      if (attempt >= PLACE_ATTEMPTS) return refusal('chain_unavailable', MESSAGES.openBetChanging);
      continue; // the open bet closed between the refusal and the read: place again
    }
    if (isRefusal(placed)) return placed;
    await deps.opened(placed.bet, placed.signature);
    return { bet: placed.bet, signature: placed.signature };
  }
}

/**
 * What a Profile A placement checks first, from the mirror and the price held (POST /api/bet and the
 * Solana Action alike): the contract is initialised and takes bets, the amount is within its limits
 * (`outOfRange` words that refusal), and a fresh price is held.
 */
export async function openForBet(
  deps: Pick<BetDeps, 'chain' | 'entryPrice'>,
  amountUnits: bigint,
  outOfRange: (config: ContractConfig) => string,
): Promise<{ config: ContractConfig; entryPrice: bigint } | GatewayRefusal> {
  const config = await onChain(() => deps.chain.readConfig());
  if (isRefusal(config)) return config;
  if (!config) return refusal('not_initialized', MESSAGES.notInitialized);
  if (config.paused) return refusal('forbidden', MESSAGES.paused);
  if (amountUnits < config.minAmount || amountUnits > config.maxAmount) return refusal('invalid_request', outOfRange(config));
  const entryPrice = await deps.entryPrice();
  if (entryPrice === null) return refusal('no_price', MESSAGES.noPrice);
  return { config, entryPrice };
}

export async function placeBetA(deps: BetDeps, req: BetRequestA): Promise<PlacedA | GatewayRefusal> {
  const bettor = parseAddress(req.address);
  if (!bettor) return refusal('invalid_request', 'address must be a base58 public key');
  const open = await openForBet(deps, req.amountUnits, (c) => `amountUnits must be between minAmount ${c.minAmount} and maxAmount ${c.maxAmount}`);
  if (isRefusal(open)) return open;
  return admitted(deps, () => placeAdmitted(deps, req, bettor, open.entryPrice));
}

/**
 * The intent of a bet on an address whose key the gateway does not hold, checked before anything
 * is sent (docs/gateway-api.md#bet-intents): present, not expired, and signed by the bettor for
 * exactly this bet (its side, amount and next bet number); else the 400 saying which.
 */
function intentRefusal(chain: ChainPort, req: BetRequestA, bettor: PublicKey, betNumber: bigint): BetIntent | GatewayRefusal {
  const intent = req.intent;
  if (!intent) return refusal('not_approved', MESSAGES.intentRequired);
  if (intent.validUntil <= BigInt(Math.floor(Date.now() / 1000))) return refusal('invalid_request', MESSAGES.intentExpired);
  const terms = { bettor, side: req.side, amount: req.amountUnits, betNumber, validUntil: intent.validUntil };
  if (!chain.intentSigned(terms, intent.signature)) return refusal('invalid_request', `${MESSAGES.intentNotSigned} (bet number ${betNumber})`);
  return intent;
}

/** The part of a Profile A placement that costs: the key, the bettor's state, the transaction. */
async function placeAdmitted(deps: BetDeps, req: BetRequestA, bettor: PublicKey, entryPrice: bigint): Promise<PlacedA | GatewayRefusal> {
  // The key store is read before the open-bet check: when it is down, the answer names it (503)
  // rather than a refusal the gateway could not act on anyway.
  const key = await deps.keyFor(bettor.toBase58());
  const state = await onChain(() => deps.chain.readBettorState(bettor));
  if (isRefusal(state)) return state;
  if (state?.openBetId != null) return refusal('open_bet', MESSAGES.openBet, { openBetId: state.openBetId.toString() });

  let stake: StakeAuthority;
  if (key) stake = { kind: 'signer', bettor: key };
  else {
    const intent = intentRefusal(deps.chain, req, bettor, state?.betCount ?? 0n);
    if (isRefusal(intent)) return intent;
    stake = { kind: 'delegate', bettor, intent };
  }
  const result = await placeOnChain(deps, stake, req.side, req.amountUnits, entryPrice);
  if (isRefusal(result)) return result;
  return {
    tx: result.signature,
    id: result.bet.id.toString(),
    bettor: result.bet.bettor,
    entryPrice: Number(result.bet.entryPrice),
  };
}

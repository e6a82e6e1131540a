/**
 * The settlement scheduler (docs/architecture.md#settlement): a clock actor ticks every
 * `SMART_SETTLE_INTERVAL_MS`; each tick scans the program's open bets on chain (the chain is the
 * truth, not memory), gives every expired bet that no live actor carries an actor of its own
 * (a bet placed by a process that died before saving its snapshot), then ticks every live
 * bet actor so expired ones price and close. With a store shared by several gateways it first
 * takes over the live series committed by followers (bets placed there). Runs never overlap. When the chain answers again
 * after a failed scan, series waiting in a retry backoff are woken at once.
 */
import { createActor, fromCallback, type AnyActorRef } from 'xstate';
import type { BetAccount, ChainPort } from '../../../adapters/chain/port.ts';
import type { SnapshotStore } from '../../../adapters/store/snapshot/port.ts';
import { clockMachine, type TickEvent } from '../../../machines/clock.ts';
import type { BetInput } from '../../../machines/bet-types.ts';
import type { Logger } from '../../../kernel/log.ts';
import type { LiveBets } from '../bets/live-bets.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** How tie replays work in this profile (Profile B only: docs/gateway-api.md#bet-status). */
export interface ReplayPolicy {
  replayTies: boolean;
  maxReplays: number;
}

/** The actor input of a bet read from the chain. */
export function betInputOf(bet: BetAccount, policy: ReplayPolicy): BetInput {
  return {
    id: bet.id.toString(),
    bettor: bet.bettor,
    seq: bet.seq.toString(),
    side: bet.side,
    amountUnits: bet.amount.toString(),
    entryPrice: bet.entryPrice.toString(),
    expireTime: Number(bet.expireTime),
    replayTies: policy.replayTies,
    maxReplays: policy.maxReplays,
  };
}

/** Store lookups sent together while adopting (one pipelined round trip each). */
const ADOPT_CHUNK = 500;

/**
 * How long an open bet may go without an actor before it is adopted whatever its expiry: a bet a
 * wallet placed itself (docs/gateway-api.md#bet-with-your-wallet) is announced this soon after the
 * chain holds it. A placement of this gateway opens its actor within milliseconds of landing, and one
 * of another gateway is in the store within its commit; should either come later, the store's
 * revisions keep one `bet_open` (the first commit of a bet wins).
 */
export const UNCLAIMED_GRACE_MS = 2_000;

/**
 * Placement transactions looked up per run for the evidence of bets adopted ahead of their expiry
 * (one `getSignaturesForAddress` each), and how long the run waits for them: a trickle of wallet
 * bets gets them all; a gateway that finds thousands of bets without an actor (after a crash)
 * adopts the rest without, as before, rather than stall its settlement on the lookups.
 */
const PLACE_TX_LOOKUPS = 200;
const PLACE_TX_WAIT_MS = 2_000;

/** What the scheduler works with. */
export interface SettlerDeps {
  chain: ChainPort;
  bets: LiveBets;
  snapshots: SnapshotStore;
  policy: ReplayPolicy;
  log: Logger;
  now?: () => number;
  /** the store is shared with other gateways: take over the live series they committed (bets placed on followers) */
  adoptFromStore?: boolean;
  /** whether this node may settle now (its leader lease surely holds); a run starts only then [always] */
  mayAct?: () => boolean;
}

/** The scheduler; `start(intervalMs)` runs `settleExpiredBets` on every clock tick. */
export class Settler {
  private running: Promise<void> | null = null;
  private actors: AnyActorRef[] = [];
  private readonly now: () => number;
  private lastScanFailed = false;
  private nextExpiryMs = Infinity;
  private runAgain = false;
  /** bets expiring within this many ms are adopted in this run (two periods) */
  private adoptAheadMs = 0;
  private lastAdoptFailed = false;
  /** open bets without an actor, and since when a run has seen them so (unix ms) */
  private readonly unclaimedSince = new Map<string, number>();

  constructor(private readonly deps: SettlerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Ids of the bets live actors are carrying now (a Profile B series carries its latest replay), and
   * their bettors; notes the earliest expiry after `nowMs` among them (see `priceStored`).
   */
  private carried(nowMs: number): { ids: Set<string>; bettors: Set<string> } {
    const ids = new Set<string>();
    const bettors = new Set<string>();
    let next = Infinity;
    for (const seriesId of this.deps.bets.seriesIds()) {
      const summary = this.deps.bets.summaryOf(seriesId);
      ids.add(summary ? summary.betId : seriesId);
      if (!summary) continue;
      bettors.add(summary.bettor);
      const expiry = summary.expireTime * 1000;
      if (expiry > nowMs && expiry < next) next = expiry;
    }
    this.nextExpiryMs = next;
    return { ids, bettors };
  }

  /**
   * A tick was stored in the price history: once it reaches the next expiry, the run for that
   * expiry starts now instead of at the next period (the exit price needs a tick at or after the
   * expiry), so a bet closes within one scan period of its expiry.
   */
  priceStored(ts: number): void {
    if (ts < this.nextExpiryMs || this.actors.length === 0) return;
    this.nextExpiryMs = Infinity;
    // a run still going (adopting thousands of bets) is followed at once by the one for this expiry
    if (this.running) this.runAgain = true;
    else this.run(this.now());
  }

  private run(nowMs: number): void {
    if (this.running) return; // the previous run is still going: skip this clock tick
    // a leader paused past its lease and resumed does nothing until its next renewal says whether it still leads
    if (this.deps.mayAct && !this.deps.mayAct()) return;
    this.running = this.settleExpiredBets(nowMs).finally(() => {
      this.running = null;
      if (this.runAgain && this.actors.length > 0) {
        this.runAgain = false;
        this.run(this.now());
      }
    });
  }

  /** One scheduler run: adopt open bets without an actor, then tick every live actor. */
  async settleExpiredBets(nowMs: number): Promise<void> {
    const { chain, bets, log } = this.deps;
    if (this.deps.adoptFromStore) {
      try {
        const adopted = await bets.adoptStored();
        if (adopted > 0) log.info({ adopted }, 'bet series placed on other gateways taken over');
        this.lastAdoptFailed = false;
      } catch (err) {
        if (!this.lastAdoptFailed)
          log.warn({ err: err instanceof Error ? err.message : err }, 'live bet series of the store unreadable; trying again every tick');
        this.lastAdoptFailed = true;
      }
    }
    try {
      const open = await chain.scanOpenBets();
      // series that backed off during the outage retry now rather than at the end of their backoff
      if (this.lastScanFailed) log.info({ woken: bets.resume() }, 'chain reachable again; settlement resumes');
      this.lastScanFailed = false;
      await this.adopt(open, nowMs);
    } catch (err) {
      if (!this.lastScanFailed) log.error({ err: err instanceof Error ? err.message : err }, 'scan of open bets failed; retrying every tick');
      this.lastScanFailed = true;
    }
    await bets.tickInSlices(nowMs);
  }

  /**
   * Gives an actor to every open bet no live series carries: one placed outside the gateways (a
   * wallet's own transaction) once a run has seen it without an actor for UNCLAIMED_GRACE_MS, and
   * any (a bet placed before a crash, or by a process that is gone) once it expires within the next
   * two runs, so that the run at its expiry already finds its actor and closes it. The store is
   * asked about all candidates at once; the adopted series announces its bet (`bet_open`).
   */
  private async adopt(open: readonly BetAccount[], nowMs: number): Promise<void> {
    const { bets, snapshots, log, policy } = this.deps;
    const horizon = nowMs + this.adoptAheadMs;
    const carried = this.carried(nowMs);
    const unclaimed = open.filter((bet) => !carried.ids.has(bet.id.toString()));
    this.noteUnclaimed(unclaimed, nowMs);
    let lookups = PLACE_TX_LOOKUPS;
    const candidates = unclaimed.filter((bet) => {
      const since = this.unclaimedSince.get(bet.id.toString()) ?? nowMs;
      if (Number(bet.expireTime) * 1000 > horizon && nowMs - since < UNCLAIMED_GRACE_MS) return false;
      // a live series of the same bettor may be about to take this bet as its replay (Profile B, after a
      // restart mid-replace): let it finish first; the next run looks again
      return !carried.bettors.has(bet.bettor);
    });
    for (let i = 0; i < candidates.length; i += ADOPT_CHUNK) {
      const chunk = candidates.slice(i, i + ADOPT_CHUNK);
      const stored = await Promise.all(chunk.map((bet) => snapshots.load(bet.id.toString())));
      const fresh = chunk.filter((bet, k) => {
        // its chain is stored (rehydrated at boot, or taken over from the store): looked at again after another grace
        if (stored[k] !== null) this.unclaimedSince.set(bet.id.toString(), nowMs);
        return stored[k] === null;
      });
      // the placement's transaction, for the evidence of a bet adopted ahead of its expiry (null when not looked up or not known in time)
      const looked = fresh.map((bet) => {
        if (Number(bet.expireTime) * 1000 <= horizon || lookups <= 0) return Promise.resolve(null);
        lookups--;
        return this.deps.chain.betTransactions({ bettor: bet.bettor, seq: bet.seq }).then(
          (t) => t.placeTx,
          () => null,
        );
      });
      const placeTxs = await Promise.race([Promise.all(looked), sleep(PLACE_TX_WAIT_MS).then(() => fresh.map(() => null))]);
      fresh.forEach((bet, k) => {
        const id = bet.id.toString();
        if (bets.has(id)) return; // opened by a placement meanwhile
        this.unclaimedSince.delete(id);
        const expiry = Number(bet.expireTime) * 1000;
        const expired = expiry <= nowMs;
        if (!expired && expiry < this.nextExpiryMs) this.nextExpiryMs = expiry;
        log.info(
          { betId: id, bettor: bet.bettor, expired },
          'open bet without an actor (placed by a wallet itself, before a crash, or by another process): adopting it from the chain',
        );
        bets.open({ ...betInputOf(bet, policy), placeTx: placeTxs[k] ?? null });
      });
    }
  }

  /** Notes since when each open bet without an actor has been seen so; forgets the others. */
  private noteUnclaimed(unclaimed: readonly BetAccount[], nowMs: number): void {
    const ids = new Set(unclaimed.map((bet) => bet.id.toString()));
    for (const id of this.unclaimedSince.keys()) if (!ids.has(id)) this.unclaimedSince.delete(id);
    for (const id of ids) if (!this.unclaimedSince.has(id)) this.unclaimedSince.set(id, nowMs);
  }

  /** Starts the clock actor. */
  start(intervalMs: number): void {
    // two periods ahead: a run adopting thousands of bets ends well before their expiry
    this.adoptAheadMs = 2 * intervalMs;
    const relay = createActor(
      fromCallback<TickEvent>(({ receive }) => {
        receive((event) => this.run(event.now));
      }),
    ).start();
    const clock = createActor(clockMachine, { input: { intervalMs, target: relay, now: this.now } }).start();
    this.actors.push(relay, clock);
  }

  /** Stops the clock and waits for a run in progress. */
  async stop(): Promise<void> {
    for (const a of this.actors) a.stop();
    this.actors = [];
    await this.running;
  }
}

/**
 * The leader's role (docs/architecture.md#the-leader: the bet actors and the settler): on
 * election it rehydrates every live bet series from the store and starts the settlement clock;
 * when leadership ends it stops both (snapshots stay live in the store for the next leader).
 *
 * @example
 *   const role = new SettlementRole({ actors: (shared) => LiveBets.boot(options), settler: (bets) => new Settler({ ...deps, bets }), intervalMs: 2000 });
 *   await role.start(7); // fence 7
 *   role.actors();       // the live runtime while leading, null otherwise
 */
import type { LiveBets } from '../bets/live-bets.ts';
import type { LeaderRole } from './leadership.ts';
import type { Settler } from '../settlement/settler.ts';

/** How the role's parts are made. */
export interface SettlementRoleDeps {
  /** boots the bet runtime (rehydrating every live series) */
  actors: () => Promise<LiveBets>;
  settler: (bets: LiveBets) => Settler;
  intervalMs: number;
}

/** Bet actors plus settler, run while this node leads. */
export class SettlementRole implements LeaderRole {
  private running: { bets: LiveBets; settler: Settler; fence: number } | null = null;

  constructor(private readonly deps: SettlementRoleDeps) {}

  async start(fence: number): Promise<void> {
    await this.stop();
    const bets = await this.deps.actors();
    const settler = this.deps.settler(bets);
    settler.start(this.deps.intervalMs);
    this.running = { bets, settler, fence };
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = null;
    if (!running) return;
    await running.settler.stop();
    await running.bets.stop();
  }

  /** A tick was stored in the price history: the settler may start its run for an expiry now. */
  priceStored(ts: number): void {
    this.running?.settler.priceStored(ts);
  }

  /** The bet runtime while leading. */
  actors(): LiveBets | null {
    return this.running?.bets ?? null;
  }

  /** The fencing token of the lease this role runs under (null when not running). */
  fence(): number | null {
    return this.running?.fence ?? null;
  }
}

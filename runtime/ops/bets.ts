/**
 * `bets` and `bet <id>`: bet series as their persisted actor snapshots show them. A series is
 * stuck when its actor failed, an effect is being retried (`attempt` > 0), or it is still open
 * `stuckAfterSeconds` past its expiry (the settler runs every 2 s by default).
 */
import * as v from 'valibot';
import { stateName } from '../gateway/bets/state-name.ts';
import type { GatewayRecords, StoredBet } from './gateway-records.ts';

const BetSnapshot = v.looseObject({
  status: v.optional(v.string(), 'unknown'),
  value: v.unknown(),
  context: v.looseObject({
    id: v.string(),
    bettor: v.string(),
    seq: v.optional(v.string(), ''),
    side: v.optional(v.string(), ''),
    amountUnits: v.optional(v.string(), ''),
    expireTime: v.number(),
    replayCount: v.optional(v.number(), 0),
    attempt: v.optional(v.number(), 0),
    lastError: v.optional(v.nullable(v.string()), null),
  }),
});

/** One row of `bets`. */
export interface BetRow {
  /** series id: the key of its snapshot (its first bet's id) */
  id: string;
  /** the bet now in play (differs from `id` after a Profile B replay) */
  betId: string;
  bettor: string;
  /** with `bettor`, the address of the bet in play on chain */
  seq: string;
  side: string;
  amountUnits: string;
  /** the actor's state, dotted (`open.placed`, `settling.closingBackoff`, ...) */
  state: string;
  /** xstate snapshot status: active, done, error */
  status: string;
  attempt: number;
  lastError: string | null;
  replayCount: number;
  /** unix seconds */
  expireTime: number;
  /** seconds since the bet's expiry (negative while its window is open) */
  age: number;
  live: boolean;
  stuck: boolean;
}

/** Filters of `bets`. */
export interface BetFilter {
  stuck?: boolean;
  state?: string;
  stuckAfterSeconds?: number;
  now?: number;
}

/** A row from a stored snapshot; null when the record is not a bet series snapshot. */
export function betRow(stored: StoredBet, stuckAfterSeconds = 30, now = Date.now()): BetRow | null {
  const parsed = v.safeParse(BetSnapshot, stored.snapshot);
  if (!parsed.success) return null;
  const { status, value, context: c } = parsed.output;
  const age = Math.floor(now / 1000) - c.expireTime;
  const state = stateName(value);
  const open = state.startsWith('open') || state.startsWith('settling');
  return {
    id: stored.id,
    betId: c.id,
    bettor: c.bettor,
    seq: c.seq,
    side: c.side,
    amountUnits: c.amountUnits,
    state,
    status,
    attempt: c.attempt,
    lastError: c.lastError,
    replayCount: c.replayCount,
    expireTime: c.expireTime,
    age,
    live: stored.live,
    stuck: stored.live && (status === 'error' || c.attempt > 0 || (open && age > stuckAfterSeconds)),
  };
}

/** Live bet series, filtered; records that are not bet snapshots are listed as `state: unreadable`. */
export async function listBets(records: GatewayRecords, filter: BetFilter = {}): Promise<BetRow[]> {
  const now = filter.now ?? Date.now();
  const rows = (await records.liveBets()).map(
    (b): BetRow =>
      betRow(b, filter.stuckAfterSeconds, now) ?? {
        id: b.id,
        betId: b.id,
        bettor: '',
        seq: '',
        side: '',
        amountUnits: '',
        state: 'unreadable',
        status: 'unknown',
        attempt: 0,
        lastError: 'the stored snapshot is not a bet series',
        replayCount: 0,
        expireTime: 0,
        age: 0,
        live: true,
        stuck: true,
      },
  );
  return rows.filter((r) => (!filter.stuck || r.stuck) && (filter.state === undefined || r.state === filter.state || r.state.startsWith(`${filter.state}.`)));
}

/** The series stored under `id`, or the live series whose bet in play is `id` (after replays); null when none. */
export async function findBet(records: GatewayRecords, id: string): Promise<StoredBet | null> {
  const direct = await records.bet(id);
  if (direct) return direct;
  for (const b of await records.liveBets()) if (betRow(b)?.betId === id) return b;
  return null;
}

/**
 * What the runtime keeps of one live series (a bet and its Profile B tie replays): its actor, its
 * newest persisted snapshot, the commits queued for it, and the helpers that read a stored
 * snapshot (`live-bets.ts` runs series; `series-commits.ts` commits them).
 *
 * A dormant series (an open bet that only waits for its expiry, docs/architecture.md#live-bets)
 * keeps no snapshot: its last commit is in the store, and the runtime keeps only what is read of
 * every live series on each settlement run (the bet now in play, its bettor and expiry), so that
 * thousands of waiting bets cost a small object each (docs/operations.md#memory).
 */
import * as v from 'valibot';
import type { Actor, ActorOptions, AnyActorLogic } from 'xstate';
import { backoffMs, type RetryPolicy } from '../../../kernel/backoff.ts';
import { betMachine } from '../../../machines/bet.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { BetContext } from '../../../machines/bet-types.ts';
import { betEffectActors, type BetEffects } from './effects.ts';
import type { BetTransition } from '../history/records.ts';

/** The xstate clock interface (setTimeout/clearTimeout), e.g. a `SimulatedClock` in model tests. */
export type XstateClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

/** Just enough of a stored snapshot to know it is a bet series worth rehydrating. */
export const StoredBet = v.looseObject({
  status: v.picklist(['active', 'done', 'error', 'stopped']),
  value: v.unknown(),
  context: v.looseObject({ seriesId: v.string(), id: v.string(), bettor: v.optional(v.string()) }),
});

/** The bet machine with the runtime's effects and retry delays. */
export function buildSeriesMachine(effects: BetEffects, policy: RetryPolicy) {
  return betMachine.provide({
    actors: betEffectActors(effects),
    delays: { retryBackoff: ({ context }) => backoffMs(context.attempt, policy) },
  });
}

export type SeriesActor = Actor<ReturnType<typeof buildSeriesMachine>>;

/** A batch of transitions to commit: the newest snapshot, every event emitted since the last batch, and the transitions that emitted them. */
export interface Batch {
  json: string;
  final: boolean;
  events: BetEmittedEvent[];
  transitions: BetTransition[];
}

/** Everything the runtime keeps per live series. */
export interface Series {
  id: string;
  actor: SeriesActor | null;
  /** rev of the last commit handed to the store */
  rev: number;
  /** the newest persisted snapshot (JSON), where a restart resumes; null before the first and while dormant (the store holds it) */
  latest: string | null;
  pending: Batch | null;
  draining: Promise<void> | null;
  /** actor failures so far (restart backoff) */
  failures: number;
  restartTimer: NodeJS.Timeout | null;
  /** unix ms of the expiry a dormant series (no actor, snapshot in the store) waits for; null when not dormant */
  dormantUntil: number | null;
  /** what a dormant series is, without its snapshot: the bet in play and its bettor (null when not dormant) */
  dormant: DormantBet | null;
  /** the read of a dormant series' snapshot back from the store, to start its actor; null when none runs */
  waking: Promise<void> | null;
}

/** What is kept of a dormant series' snapshot: the bet now in play and its bettor (its expiry is the series' `dormantUntil`). */
export interface DormantBet {
  betId: string;
  bettor: string;
}

/** What every live series is read as on each settlement run and metrics scrape (see `summaryOf`). */
export interface SeriesSummary {
  /** the machine's state value */
  value: unknown;
  /** the bet now in play */
  betId: string;
  bettor: string;
  /** unix seconds */
  expireTime: number;
}

/** The state value of every dormant series: an open bet, placed, that waits for its expiry (see `waitingUntil`). */
export const DORMANT_VALUE: unknown = Object.freeze({ open: 'placed' });

/** A series with nothing committed yet beyond `rev`. */
export const newSeries = (id: string, rev: number, latest: string | null): Series => ({
  id,
  actor: null,
  rev,
  latest,
  pending: null,
  draining: null,
  failures: 0,
  restartTimer: null,
  dormantUntil: null,
  dormant: null,
  waking: null,
});

/** The unix ms expiry a persisted snapshot waits for, when it is an open bet that only waits; else null. */
export function waitingUntil(snapshot: unknown): number | null {
  const s = snapshot as { status?: unknown; value?: unknown; context?: { expireTime?: unknown } } | null;
  const value = s?.value as { open?: unknown } | undefined;
  if (s?.status !== 'active' || value?.open !== 'placed' || typeof s.context?.expireTime !== 'number') return null;
  return s.context.expireTime * 1000;
}

/** The bet in play of a snapshot that only waits for its expiry, as a dormant series keeps it. */
export function dormantOf(seriesId: string, snapshot: unknown, shareName: (name: string) => string): DormantBet {
  const c = (snapshot as { context: { id: string; bettor: string } }).context;
  // the first bet of a series has the series' id: one string for both
  return { betId: c.id === seriesId ? seriesId : c.id, bettor: shareName(c.bettor) };
}

/** What a series is now: its actor's snapshot, or its latest committed one while it has none (restarting); undefined when dormant (the store has it). */
export function currentOf(series: Series): { value: unknown; context: BetContext } | undefined {
  if (series.actor) return series.actor.getSnapshot();
  return series.latest ? (JSON.parse(series.latest) as { value: unknown; context: BetContext }) : undefined;
}

/** A series' summary without reading the store: from its actor, its dormant bet, or its latest snapshot. */
export function summaryOf(series: Series): SeriesSummary | undefined {
  if (!series.actor && series.dormant && series.dormantUntil !== null)
    return { value: DORMANT_VALUE, betId: series.dormant.betId, bettor: series.dormant.bettor, expireTime: series.dormantUntil / 1000 };
  const now = currentOf(series);
  return now ? { value: now.value, betId: now.context.id, bettor: now.context.bettor, expireTime: now.context.expireTime } : undefined;
}

/** A series' snapshot as it would be saved now; undefined when dormant (the store has it) or before its first commit. */
export function persistedOf(series: Series): unknown {
  if (series.actor) return JSON.parse(JSON.stringify(series.actor.getPersistedSnapshot())) as unknown;
  return series.latest ? (JSON.parse(series.latest) as unknown) : undefined;
}

export const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Keeps the bet history to `GW_HISTORY_DAYS`: records of bets opened longer ago are deleted
 * hourly (and once at start). A failed run is logged and tried again at the next hour.
 *
 * @example
 *   const pruning = startHistoryPruning({ store: stores.betHistory, retentionDays: 7, log });
 *   pruning.stop();
 */
import type { BetHistoryStore } from '../../../adapters/store/bet-history/port.ts';
import type { Logger } from '../../../kernel/log.ts';

const DAY_MS = 86_400_000;

/** What pruning works on. */
export interface HistoryPruningDeps {
  store: Pick<BetHistoryStore, 'pruneOpenedBefore'>;
  retentionDays: number;
  log: Logger;
  /** unix ms [Date.now] */
  now?: () => number;
  /** [1 h] */
  intervalMs?: number;
}

/** Deletes records older than the retention; returns how many. */
export async function pruneHistory(deps: HistoryPruningDeps): Promise<number> {
  const removed = await deps.store.pruneOpenedBefore((deps.now ?? Date.now)() - deps.retentionDays * DAY_MS);
  if (removed > 0) deps.log.info({ removed, days: deps.retentionDays }, 'bet history pruned');
  return removed;
}

/** Prunes now and then every `intervalMs`, until stopped. */
export function startHistoryPruning(deps: HistoryPruningDeps): { stop(): void } {
  const run = () => void pruneHistory(deps).catch((err: unknown) => deps.log.error({ err }, 'bet history pruning failed; tried again later'));
  run();
  const timer = setInterval(run, deps.intervalMs ?? 3_600_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

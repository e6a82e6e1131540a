/**
 * Boot-time waiting for a dependency (the parts start in any order: docs/operations.md#processes):
 * retries `probe` with backoff (250 ms doubling to 5 s) until it succeeds, logging what it waits
 * for at the first failure and then every 30 s, so a gateway started before its chain, Redis or
 * NATS says why it is not up yet and carries on by itself once they are.
 *
 * @example
 *   await waitFor('the chain at http://127.0.0.1:8899', () => chain.genesisHash(), log);
 */
import type { Logger } from '../kernel/log.ts';
import { backoffMs } from '../kernel/backoff.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves with the probe's first success; never gives up (stop the process to stop it). */
export async function waitFor<T>(what: string, probe: () => Promise<T>, log: Logger, hint?: string): Promise<T> {
  const started = Date.now();
  let lastLog = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await probe();
      if (attempt > 1) log.info({ waitedMs: Date.now() - started }, `${what} is reachable; going on`);
      return value;
    } catch (err) {
      const delay = backoffMs(attempt, { baseMs: 250, maxMs: 5_000 });
      if (attempt === 1 || Date.now() - lastLog >= 30_000) {
        lastLog = Date.now();
        log.warn(
          { err: err instanceof Error ? err.message : String(err), retryInMs: delay, waitedMs: Date.now() - started },
          `waiting for ${what}${hint ? ` (${hint})` : ''}`,
        );
      }
      await sleep(delay);
    }
  }
}

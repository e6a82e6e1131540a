/**
 * Results of exchange operations: a value, or a business refusal with one of the exchange's error
 * codes (`kernel/refusal.ts`). The HTTP layer maps codes to statuses (docs/exchange-api.md#errors).
 */
import type { Result } from '../../kernel/refusal.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** Error codes of the exchange API (docs/exchange-api.md#errors). */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'ACCOUNT_NOT_FOUND'
  | 'API_KEY_NOT_FOUND'
  | 'NAME_TAKEN'
  | 'INSUFFICIENT_FUNDS'
  | 'INSUFFICIENT_POSITION'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'PRICE_UNAVAILABLE';

/** A value, or a refusal with an exchange error code. */
export type Outcome<T> = Result<T, ErrorCode>;

/** Retries `attempt` while it reports a version conflict (another writer committed first). */
export async function retryOnConflict<T>(attempt: () => Promise<T | 'conflict'>, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const out = await attempt();
    if (out !== 'conflict') return out;
    // Jittered backoff so racing writers (also in other processes) spread out.
    await sleep(Math.random() * Math.min(20, 1 + i));
  }
  throw new Error(`gave up after ${tries} conflicting commits`);
}

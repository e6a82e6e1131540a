/**
 * Results of exchange operations: a value, or a business refusal with an error code
 * (spec §7; design: error codes). The HTTP layer maps codes to statuses.
 */
/** Error codes of the exchange API (spec §7; design: error codes). */
export type ErrorCode =
  'VALIDATION_ERROR' | 'ACCOUNT_NOT_FOUND' | 'NAME_TAKEN' | 'INSUFFICIENT_FUNDS' | 'INSUFFICIENT_POSITION' | 'IDEMPOTENCY_KEY_REUSED' | 'PRICE_UNAVAILABLE';

/** A value or a refusal. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; message: string };

/** A successful outcome. */
export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
/** A refusal with a spec error code. */
export const refuse = <T = never>(code: ErrorCode, message: string): Outcome<T> => ({ ok: false, code, message });

/** HTTP status of each code (spec §7 and design). */
export const STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  ACCOUNT_NOT_FOUND: 404,
  NAME_TAKEN: 409,
  INSUFFICIENT_FUNDS: 409,
  INSUFFICIENT_POSITION: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  PRICE_UNAVAILABLE: 503,
};

/** Retries `attempt` while it reports a version conflict (another writer committed first). */
export async function retryOnConflict<T>(attempt: () => Promise<T | 'conflict'>, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const out = await attempt();
    if (out !== 'conflict') return out;
    // Jittered backoff so racing writers (also in other processes) spread out.
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, 1 + i)));
  }
  throw new Error(`gave up after ${tries} conflicting commits`);
}

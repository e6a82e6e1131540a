/**
 * Business refusals are values, not exceptions (docs/architecture.md#refusals): an operation
 * answers `Result<T, C>` — its value, or a `Refusal` with a code and a message for people. Both
 * services use this one shape; each service's edge keeps its own table from code to answer
 * (status and wire body), so the two APIs' different error shapes are data, not code paths.
 *
 * @example
 *   const out: Result<Account, 'ACCOUNT_NOT_FOUND'> = account ? ok(account) : refuse('ACCOUNT_NOT_FOUND', `no account ${id}`);
 *   if (!out.ok) return answerRefusal(out);
 */

/** A refusal with code `C`; `X` adds fields of its own (e.g. the open bet's id); `cause` is for the log of a 5xx. */
export type Refusal<C extends string = string, X extends object = object> = {
  readonly ok: false;
  readonly code: C;
  readonly message: string;
  readonly cause?: unknown;
} & X;

/** A success. */
export interface Ok<T> {
  readonly ok: true;
  readonly value: T;
}

/** A value, or a refusal. */
export type Result<T, C extends string = string, X extends object = object> = Ok<T> | Refusal<C, X>;

/** A success carrying `value`. */
export const ok = <T>(value: T): Ok<T> => ({ ok: true, value });

/** A refusal with `code`, `message` and the extra fields given (`cause` among them). */
export function refuse<C extends string, X extends object = object>(code: C, message: string, extra?: X & { cause?: unknown }): Refusal<C, X> {
  return { ...(extra as X), ok: false, code, message };
}

/** Whether `x` is a refusal (of any code). */
export function isRefusal(x: unknown): x is Refusal {
  return typeof x === 'object' && x !== null && (x as { ok?: unknown }).ok === false && typeof (x as { code?: unknown }).code === 'string';
}

/**
 * Delays between attempts of something that failed (a write, a connection, a read), declared once:
 * `baseMs` doubling per failure up to `maxMs`, and, for anything many processes do at the same
 * moment (reconnecting after a server restart), a random part so that they do not all come back in
 * the same instant: `full` draws the delay below the ceiling, `equal` between its half and itself.
 *
 * @example
 *   await sleep(backoffMs(failures, { baseMs: 250, maxMs: 5_000 }));              // 250, 500, 1000 ... 5000
 *   setTimeout(reconnect, backoffMs(attempt, { baseMs: 100, maxMs: 3_000, jitter: 'full' }));
 */

/** How failed attempts are spaced. */
export interface RetryPolicy {
  /** the delay before the first retry */
  baseMs: number;
  /** the longest delay */
  maxMs: number;
  /** the random part [none] */
  jitter?: 'none' | 'full' | 'equal';
}

/** The delay before retry number `failures` (1 for the first retry): base, 2 x base, 4 x base ... at most max, with the policy's jitter. */
export function backoffMs(failures: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(0, failures - 1), 30);
  const ceiling = Math.min(policy.baseMs * 2 ** exponent, policy.maxMs);
  switch (policy.jitter ?? 'none') {
    case 'full':
      return Math.round(ceiling * random());
    case 'equal':
      return Math.round(ceiling * (0.5 + random() / 2));
    default:
      return ceiling;
  }
}

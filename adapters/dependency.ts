/**
 * A dependency the services cannot work without (Redis, the chain, NATS) did not answer. The
 * HTTP edges turn it into 503 with Retry-After and an error naming the dependency (design:
 * "a dependency outage is a 503 with Retry-After within a bounded deadline, never a 500 or a
 * hang"); the spec's own statuses win where it fixes one (gateway POST /bet: 500 when the chain
 * is unreachable).
 */

/** The external systems a request may wait on. */
export type Dependency = 'redis' | 'chain' | 'nats';

/** A dependency is unreachable, timed out, or answered something unusable. */
export class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: Dependency,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DependencyUnavailable';
  }
}

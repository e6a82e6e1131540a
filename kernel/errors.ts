/**
 * The project's error vocabulary for failures that are not a business refusal (refusals are
 * values: `kernel/refusal.ts`). Every layer may throw these; each service's edge turns them into
 * its answers (docs/architecture.md#errors).
 */

/** The external systems a request may wait on. */
export type Dependency = 'redis' | 'chain' | 'nats';

/**
 * A dependency the services cannot work without (Redis, the chain, NATS) is unreachable, timed
 * out, or answered something unusable. The HTTP edges answer 503 with Retry-After naming it,
 * except where a service's contract fixes another status (gateway `POST /api/bet`: 500 when the
 * chain is unreachable).
 */
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

/**
 * A setting that cannot be used, named: thrown while a process reads its configuration or opens
 * what the configuration points at (a key-store secret file), so the process exits with one line
 * that names the variable and what is wrong with it.
 */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** A port another process already listens on: every listener of the project says so in one line instead of a stack trace. */
export class PortInUse extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} is in use (${host}:${port}); stop the other process or choose another port`);
    this.name = 'PortInUse';
  }
}

/**
 * A mistake or a missing dependency the operator can act on (unknown id, unreachable Redis,
 * bad option): the CLI prints its message and exits non-zero, never a stack trace.
 */
export class OpsError extends Error {
  constructor(
    message: string,
    /** process exit code */
    readonly exitCode = 2,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OpsError';
  }
}

/** The message of anything thrown. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

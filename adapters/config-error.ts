/**
 * A setting that cannot be used, named: thrown while a process reads its configuration
 * (`runtime/env.ts`) or opens what the configuration points at (a key-store secret file), so
 * the process exits with one line that names the variable and what is wrong with it.
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

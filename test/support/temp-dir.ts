/**
 * Temporary directories for tests and benches: `tempDir('gw-stack-')` makes a fresh directory.
 * Under vitest it sits in the run's own directory, which the global set-up removes when the run
 * ends (a test worker is stopped without running exit handlers); elsewhere (a bench) it sits in
 * the system's temp dir and is removed when the process exits. A test may remove its own sooner.
 *
 * @example
 *   const dataDir = tempDir('exchange-embedded-');
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The environment variable naming the test run's directory (set by the global set-up, services.ts). */
export const TEMP_ROOT_ENV = 'UPDOWN_TEST_TMP';

const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory whose name starts with `prefix`, removed at the end of the test run (or when the process exits). */
export function tempDir(prefix: string): string {
  const root = process.env[TEMP_ROOT_ENV];
  if (root) return mkdtempSync(join(root, prefix));
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

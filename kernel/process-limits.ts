/**
 * Limits the kernel sets on this process, read where the system says them (Linux /proc): a server
 * that holds a socket per client sizes itself below its file-descriptor limit, because at the
 * limit uWS can accept nothing more and spins on the failed accept (docs/operations.md#a-reconnect-herd).
 *
 * @example
 *   const files = openFileLimit(); // 20000, or null where it cannot be read
 */
import { readFileSync } from 'node:fs';

/** The soft limit on open files of this process; null where it cannot be read, Infinity when unlimited. */
export function openFileLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === undefined) return null;
    return soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft);
  } catch {
    return null;
  }
}

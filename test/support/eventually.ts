/**
 * Waiting for a condition the system reaches by itself (a bet settled, a leader elected), bounded:
 * the bound is a hang guard, never a speed check.
 *
 * @example
 *   const leader = await eventually('a leader', async () => (await healths()).find((h) => h.leader) ?? null, 15_000);
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `check` every `everyMs` until it answers non-null (a throw counts as not yet); throws naming `what` after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | null>, timeoutMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check().catch(() => null);
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error(`${what}: still not so after ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** `read()`, made again every `everyMs` while it throws (a 429 burst, a cut socket), at most `attempts` times. */
export async function patiently<T>(read: () => Promise<T>, attempts = 20, everyMs = 500): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (attempt >= attempts) throw err;
      await sleep(everyMs);
    }
  }
}

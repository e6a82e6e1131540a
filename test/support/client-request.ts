/**
 * A client's HTTP request for the process-level suites, and a plain sleep: a request never
 * throws, so a killed or paused gateway is an answer like any other (status 0 once the deadline
 * passed).
 *
 * @example
 *   const r = await request(base, 'POST', '/api/bet', { address, side: 'UP', amountUnits: '100000000' });
 */

/** fetch with a deadline; never throws (a dead gateway is status 0). */
export async function request(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 8_000,
): Promise<{ status: number; headers: Headers | null; body: any; ms: number }> {
  const started = Date.now();
  try {
    const res = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep the text */
    }
    return { status: res.status, headers: res.headers, body: parsed, ms: Date.now() - started };
  } catch {
    return { status: 0, headers: null, body: undefined, ms: Date.now() - started };
  }
}

export { setTimeout as sleep } from 'node:timers/promises';

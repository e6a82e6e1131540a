/**
 * A steady probe of one route during a benchmark: a GET every `everyMs` on a keep-alive connection
 * (at most one in flight, a 10 s timeout counted as 10,000 ms), each answer's time kept, to read
 * the route's latency while something else loads the server (a reconnect herd).
 *
 * @example
 *   const state = probe(base, '/api/state', 25);
 *   ...
 *   const { ms, timeouts, failures } = state.stop();
 */
import { Agent, request } from 'node:http';
import { sleep } from './measure.ts';

/** GET `path` every `everyMs` until `stop()`; each answer's ms (a timeout counts as 10 000). */
export function probe(base: string, path: string, everyMs: number): { stop(): { ms: number[]; timeouts: number; failures: number } } {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const ms: number[] = [];
  let timeouts = 0;
  let failures = 0;
  let stopped = false;
  const once = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = request(`${base}${path}`, { agent, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          ms.push(performance.now() - started);
          if (res.statusCode !== 200) failures++;
          resolve();
        });
      });
      req.on('timeout', () => {
        timeouts++;
        ms.push(10_000);
        req.destroy();
      });
      req.on('error', () => {
        failures++;
        resolve();
      });
      req.end();
    });
  (async () => {
    while (!stopped) {
      const next = sleep(everyMs);
      await Promise.race([once(), sleep(10_000)]);
      await next;
    }
  })().catch(() => undefined); // nothing in the loop throws: a failed request is counted, not thrown
  return {
    stop() {
      stopped = true;
      agent.destroy();
      return { ms, timeouts, failures };
    },
  };
}

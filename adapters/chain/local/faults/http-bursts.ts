/**
 * The fault profile's rate limiting (docs/operations.md#a-fault-profile): public RPC providers
 * answer bursts of HTTP 429. During the first `burstMs` of every `everyMs` window (counted from
 * the chain's start) every JSON-RPC POST is answered 429 with `Retry-After` (whole seconds to
 * the end of the burst, at least 1) and a JSON-RPC error body carrying the request's id;
 * `GET /health` is not limited.
 */
import * as v from 'valibot';
import type { Throttle, Throttled } from '../http.ts';
import type { FaultCounters } from './counters.ts';

const TOO_MANY = { code: 429, message: 'Too many requests' };
const WithId = v.looseObject({ id: v.union([v.string(), v.number()]) });

/** The id of one request, or null when it has none we can read. */
function idOf(request: unknown): string | number | null {
  const parsed = v.safeParse(WithId, request);
  return parsed.success ? parsed.output.id : null;
}

/** The JSON-RPC error answer to `text` (a single request or a batch). */
export function tooManyRequestsBody(text: string): string {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: answered with id null, as a parse error would be
  }
  if (Array.isArray(parsed) && parsed.length > 0) return JSON.stringify(parsed.map((r) => ({ jsonrpc: '2.0', id: idOf(r), error: TOO_MANY })));
  return JSON.stringify({ jsonrpc: '2.0', id: idOf(parsed), error: TOO_MANY });
}

/** Answers 429 inside the bursts. */
export class RequestBursts implements Throttle {
  private readonly origin: number;

  constructor(
    private readonly burst: { burstMs: number; everyMs: number },
    private readonly counters: FaultCounters,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.origin = now();
  }

  answer(body: string): Throttled | null {
    const phase = (this.now() - this.origin) % this.burst.everyMs;
    if (phase >= this.burst.burstMs) return null;
    this.counters.throttled++;
    return { retryAfterS: Math.max(1, Math.ceil((this.burst.burstMs - phase) / 1000)), body: tooManyRequestsBody(body) };
  }
}

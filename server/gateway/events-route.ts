/**
 * `GET /api/events?since=<seq>&limit=<n>` (docs/gateway-api.md#history-over-http): the history of
 * the event stream over HTTP, `{epoch, events}`, the same events a WebSocket connect with `since`
 * replays (a client that was told `recovered: false` reloads from here or from the REST state). 400
 * for a bad `since` or `limit`; 503 with Retry-After while the log is unreachable.
 */
import * as v from 'valibot';
import type { LoggedEvent } from '../../adapters/store/event-log/port.ts';
import { HttpError } from '../http/reply.ts';
import type { EventPage } from './event-stream.ts';
import type { GatewayRouter } from './router.ts';
import { eventsRoute } from '../openapi/gateway.ts';

/** Most events one page returns. */
export const MAX_EVENTS_PAGE = 1_000;
const DEFAULT_PAGE = 100;

const Query = v.object({
  since: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'since must be a non-negative integer (a seq)'), v.transform(Number)), '0'),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, `limit must be an integer from 1 to ${MAX_EVENTS_PAGE}`),
      v.transform(Number),
      v.minValue(1, `limit must be an integer from 1 to ${MAX_EVENTS_PAGE}`),
      v.maxValue(MAX_EVENTS_PAGE, `limit must be an integer from 1 to ${MAX_EVENTS_PAGE}`),
    ),
    String(DEFAULT_PAGE),
  ),
});

/** Registers the route; `page` reads the history (the event stream's). */
export function registerEventsRoute<E extends LoggedEvent>(router: GatewayRouter, page: (since: number, limit: number) => Promise<EventPage<E>>): void {
  router.get(eventsRoute, async ({ query }) => {
    const raw: Record<string, string> = {};
    for (const key of ['since', 'limit'] as const) {
      const all = query.getAll(key);
      if (all.length > 1) throw new HttpError(400, { error: `${key} may be given once` });
      if (all[0] !== undefined) raw[key] = all[0];
    }
    const parsed = v.safeParse(Query, raw);
    if (!parsed.success) throw new HttpError(400, { error: parsed.issues[0].message });
    try {
      return await page(parsed.output.since, parsed.output.limit);
    } catch (err) {
      throw new HttpError(503, { error: 'the event log is unreachable; try again' }, { cause: err, headers: [['Retry-After', '2']] });
    }
  });
}

/**
 * `events --since <seq> [--follow]`: the gateway's event log from a seq on, paged; following
 * polls for new events until the signal aborts.
 */
import type { LoggedEvent, Sequenced } from '../../adapters/store/event-log/port.ts';
import type { GatewayRecords } from './gateway-records.ts';

const PAGE = 500;

/** Every event with seq > `since`, oldest first. */
export async function readEvents(records: GatewayRecords, since: number): Promise<Array<Sequenced<LoggedEvent>>> {
  const out: Array<Sequenced<LoggedEvent>> = [];
  for (let from = since; ;) {
    const page = await records.eventsSince(from, PAGE);
    out.push(...page);
    if (page.length < PAGE) return out;
    from = page[page.length - 1]?.seq ?? from;
  }
}

/** Hands every event with seq > `since` to `emit`, then new ones as they come, until `signal` aborts. */
export async function followEvents(
  records: GatewayRecords,
  since: number,
  emit: (e: Sequenced<LoggedEvent>) => void,
  signal: AbortSignal,
  pollMs = 500,
): Promise<void> {
  let from = since;
  while (!signal.aborted) {
    const page = await records.eventsSince(from, PAGE);
    for (const e of page) emit(e);
    from = page[page.length - 1]?.seq ?? from;
    if (page.length < PAGE)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
  }
}

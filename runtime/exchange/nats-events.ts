/**
 * Sends the exchange's ledger events to NATS (`exchange.<accountId>.<kind>`, see `events.ts`).
 * The connection is made in the background and kept with endless reconnects, so the exchange
 * starts and serves while NATS is down; events committed meanwhile are not sent (the ledger and
 * its journal over REST are the truth).
 *
 * @example
 *   const events = natsExchangeEvents('nats://127.0.0.1:4222', log);
 *   const store = publishingStore(ledger, events.publish, log);
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../adapters/feed/nats-connection.ts';
import type { Logger } from '../../kernel/log.ts';
import type { LinkWatch } from '../dependency-links.ts';
import { waitFor } from '../wait-for.ts';
import { exchangeSubject, type ExchangeEvent } from './events.ts';

/** A publisher of exchange events. */
export interface ExchangeEventsPublisher {
  publish(event: ExchangeEvent): void;
  close(): Promise<void>;
}

/** Starts connecting to `url`; `publish` drops events (logged once per outage) until connected; `watch` follows the connection. */
export function natsExchangeEvents(url: string, log: Logger, watch?: LinkWatch): ExchangeEventsPublisher {
  let nc: NatsConnection | null = null;
  let closed = false;
  let dropping = false;
  const connecting = waitFor(`NATS at ${url} (exchange events)`, () => connectNats(url, 'exchange-events', log, watch), log).then((c) => {
    if (closed)
      c.close().catch(() => undefined); // closing a connection nobody uses
    else nc = c;
  });
  return {
    publish(event) {
      if (!nc || nc.isClosed()) {
        if (!dropping) log.warn({ subject: exchangeSubject(event) }, 'NATS not connected yet: exchange events are not published');
        dropping = true;
        return;
      }
      dropping = false;
      nc.publish(exchangeSubject(event), JSON.stringify(event));
    },
    async close() {
      closed = true;
      if (nc) await nc.drain().catch(() => undefined);
      else void connecting.catch(() => undefined);
    },
  };
}

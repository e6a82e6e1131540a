/**
 * Sends the exchange's events to NATS (`exchange.<accountId>.<kind>`, see `events.ts`).
 * The connection is made in the background and kept with endless reconnects, so the exchange
 * starts and serves while NATS is down. `publish` is plain NATS, fire-and-forget (the engine's
 * order and balance events: sent while connected, else dropped); `publishDurable` goes to the
 * JetStream stream of the ledger's events with a `Nats-Msg-Id` and resolves once the stream
 * stored it, or knew it already (the outbox relay, docs/operations.md#exchange-events-outbox).
 * The stream is created when missing; its subjects are the ones plain subscribers already use.
 *
 * @example
 *   const events = natsExchangeEvents('nats://127.0.0.1:4222', log, { name: 'EXCHANGE_EVENTS', subjects: ['exchange.*.journal', 'exchange.*.fill'] });
 *   await events.publishDurable(event, `${accountId}/journal/${entryId}`);
 */
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { ensureStream } from '../../adapters/store/event-log/stream-config.ts';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../adapters/feed/nats-connection.ts';
import type { Logger } from '../../kernel/log.ts';
import type { LinkWatch } from '../dependency-links.ts';
import { waitFor } from '../wait-for.ts';
import { exchangeSubject, type ExchangeEvent } from './events.ts';

/** The JetStream stream of the ledger's events. */
export interface ExchangeEventStream {
  name: string;
  subjects: string[];
  /** [1] */
  replicas?: number;
  /** how long a `Nats-Msg-Id` is remembered [2 min] */
  duplicateWindowMs?: number;
  /** [24 h] */
  maxAgeMs?: number;
  /** [256 MiB] */
  maxBytes?: number;
}

/** A publisher of exchange events. */
export interface ExchangeEventsPublisher {
  publish(event: ExchangeEvent): void;
  /** To the stream, deduplicated by `msgId`; rejects while NATS (or the stream) cannot store it. */
  publishDurable(event: ExchangeEvent, msgId: string): Promise<void>;
  close(): Promise<void>;
}

/** The stream, created when missing (another process may win the race: then its stream is used). */
async function ensureEventStream(nc: NatsConnection, spec: ExchangeEventStream, log: Logger): Promise<void> {
  const info = await ensureStream(await jetstreamManager(nc), {
    name: spec.name,
    subjects: spec.subjects,
    replicas: spec.replicas ?? 1,
    bounds: {
      maxBytes: spec.maxBytes ?? 256 * 1024 * 1024,
      maxAgeMs: spec.maxAgeMs ?? 86_400_000,
      maxMsgs: -1,
      duplicateWindowMs: spec.duplicateWindowMs ?? 120_000,
    },
  });
  const missing = spec.subjects.filter((s) => !info.config.subjects.includes(s));
  if (missing.length > 0) log.warn({ stream: spec.name, missing }, 'the exchange event stream does not list these subjects; events on them are not stored');
  else log.info({ stream: spec.name, subjects: spec.subjects, replicas: info.config.num_replicas }, 'exchange event stream ready');
}

/** Starts connecting to `url`; `publish` drops events (logged once per outage) until connected; `watch` follows the connection. */
export function natsExchangeEvents(url: string, log: Logger, stream?: ExchangeEventStream, watch?: LinkWatch): ExchangeEventsPublisher {
  let nc: NatsConnection | null = null;
  let closed = false;
  let dropping = false;
  let ensured: Promise<void> | null = null;
  let js: { nc: NatsConnection; client: JetStreamClient } | null = null;
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
    async publishDurable(event, msgId) {
      if (!stream) throw new Error('no exchange event stream configured');
      const c = nc;
      if (!c || c.isClosed()) throw new Error('NATS not connected yet');
      try {
        ensured ??= ensureEventStream(c, stream, log);
        await ensured;
        if (js?.nc !== c) js = { nc: c, client: jetstream(c, { timeout: 2_000 }) };
        await js.client.publish(exchangeSubject(event), JSON.stringify(event), { msgID: msgId });
      } catch (err) {
        ensured = null; // looked at again on the next try (the stream may have been deleted)
        throw err;
      }
    },
    async close() {
      closed = true;
      if (nc) await nc.drain().catch(() => undefined);
      else void connecting.catch(() => undefined);
    },
  };
}

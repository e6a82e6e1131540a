/**
 * The event stream shared by several gateways (design: "Several gateways"): with NATS_URL set,
 * the gateway's broadcast events live in one JetStream stream; this opens it on a connection of
 * its own (waiting, logged, until NATS answers) and validates what it reads back.
 *
 * @example
 *   const shared = await openSharedStream(config.NATS_URL, log); // null without NATS
 */
import * as v from 'valibot';
import { connectNats } from '../../adapters/feed/nats-connection.ts';
import { openJetStreamEventLog, type JetStreamEventLog } from '../../adapters/store/event-log-jetstream.ts';
import type { Sequenced } from '../../adapters/store/event-log.ts';
import type { Logger } from '../log.ts';
import { waitFor } from '../wait-for.ts';
import { GatewayEventSchema, type GatewayEvent } from './events.ts';

/** The shared stream and its connection. */
export interface SharedStream {
  log: JetStreamEventLog<GatewayEvent>;
  close(): Promise<void>;
}

/** The dedup id of a committed event: a bet's events are named by bet id and kind, so each is in the stream once. */
export function dedupIdOf(event: Sequenced<GatewayEvent>): string {
  return event.type === 'price' ? `price:${event.ts}:${event.price}` : `bet:${event.id}:${event.type}`;
}

/** The JetStream stream name of a subject prefix: `gw.events` -> `GW_EVENTS`. */
export const streamNameOf = (subjectPrefix: string): string => subjectPrefix.toUpperCase().replaceAll('.', '_');

/**
 * Opens the shared stream when `natsUrl` is set; null otherwise. `subjectPrefix` names the
 * deployment's stream (gateways of one deployment share it; another deployment on the same NATS
 * takes its own, or bet ids of two chains would collide).
 */
export async function openSharedStream(natsUrl: string | undefined, log: Logger, subjectPrefix = 'gw.events'): Promise<SharedStream | null> {
  if (!natsUrl) return null;
  const nc = await waitFor(`NATS at ${natsUrl} (event stream)`, () => connectNats(natsUrl, 'gateway-events', log), log);
  try {
    const stream = await waitFor('the JetStream event stream', () => openJetStreamEventLog<GatewayEvent>(nc, { stream: streamNameOf(subjectPrefix), subjectPrefix, parse: (raw) => v.parse(GatewayEventSchema, raw), log }), log, 'is JetStream enabled on the NATS server (-js)?');
    return {
      log: stream,
      close: async () => {
        await nc.drain().catch(() => undefined);
      },
    };
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw err;
  }
}

/**
 * The event stream shared by several gateways (docs/architecture.md#the-event-stream): with NATS_URL set,
 * the gateway's broadcast events live in one JetStream stream; this opens it on a connection of
 * its own (waiting, logged, until NATS answers), claims it for the gateway's chain (a stream
 * belongs to one chain: `runtime/gateway/events/stream-ownership.ts`) and validates what it reads back.
 *
 * @example
 *   const shared = await openSharedStream(config.NATS_URL, log, config.GW_EVENT_STREAM, { chain, outbox: stores.eventLog }); // null without NATS
 */
import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import * as v from 'valibot';
import type { ChainPort } from '../../../adapters/chain/port.ts';
import { connectNats } from '../../../adapters/feed/nats-connection.ts';
import { openJetStreamEventLog, type JetStreamEventLog } from '../../../adapters/store/event-log/jetstream.ts';
import type { EventLog, Sequenced } from '../../../adapters/store/event-log/port.ts';
import type { Logger } from '../../../kernel/log.ts';
import type { LinkWatch } from '../../dependency-links.ts';
import { waitFor } from '../../wait-for.ts';
import { GatewayEventSchema, type GatewayEvent } from './schemas.ts';
import { adoptsWhenRelayedFrom, reportOwnership } from './stream-ownership.ts';

/** The shared stream and its connection. */
export interface SharedStream {
  log: JetStreamEventLog<GatewayEvent>;
  /** the stream's connection (the leader lease's bucket lives on the same NATS) */
  connection: NatsConnection;
  /** the stream's name (`GW_EVENTS`): the lease's bucket is `<name>_LEADER` */
  name: string;
  /** the dedup id of a committed event of this gateway's chain (see `dedupIdsOf`) */
  dedupIdOf(event: Sequenced<GatewayEvent>): string;
  close(): Promise<void>;
}

/** Whose the stream is: the gateway's chain (its genesis hash names the owner) and its outbox (which judges a stream an older version made). */
export interface StreamOwnerSide {
  chain: Pick<ChainPort, 'genesisHash'>;
  outbox: EventLog<GatewayEvent>;
}

/**
 * The dedup ids of the committed events of the chain with genesis hash `genesis`. A bet's events
 * are named by chain, bet id and kind, so each is in the stream once, and bet 1 of a new chain is
 * never taken for bet 1 of an older one (e.g. one whose gateway still runs). A tick is named by
 * its time and price alone: it is a fact of the market, not of a chain (gateways of any chain
 * ingest the same feed), and its time never comes again.
 */
export function dedupIdsOf(genesis: string): (event: Sequenced<GatewayEvent>) => string {
  const chain = genesis.slice(0, 8);
  return (event) => (event.type === 'price' ? `price:${event.ts}:${event.price}` : `bet:${chain}:${event.id}:${event.type}`);
}

/** The JetStream stream name of a subject prefix: `gw.events` -> `GW_EVENTS`. */
export const streamNameOf = (subjectPrefix: string): string => subjectPrefix.toUpperCase().replaceAll('.', '_');

/**
 * Opens the shared stream when `natsUrl` is set; null otherwise. `subjectPrefix` (GW_EVENT_STREAM)
 * names the deployment's stream: gateways of one deployment share it; another deployment on the
 * same NATS takes its own, or each start of the one would take the stream from the other.
 * `watch` follows the stream's connection (`runtime/dependency-links.ts`).
 */
export async function openSharedStream(
  natsUrl: string | undefined,
  log: Logger,
  subjectPrefix: string,
  owner: StreamOwnerSide,
  replicas = 1,
  watch?: LinkWatch,
): Promise<SharedStream | null> {
  if (!natsUrl) return null;
  const genesis = await waitFor("the chain (its genesis hash names the event stream's owner)", () => owner.chain.genesisHash(), log);
  const nc = await waitFor(`NATS at ${natsUrl} (event stream)`, () => connectNats(natsUrl, 'gateway-events', log, watch), log);
  try {
    const stream = streamNameOf(subjectPrefix);
    const claim = randomUUID(); // one per start: a retried open carries on its own claim
    const opened = await waitFor(
      'the JetStream event stream',
      () =>
        openJetStreamEventLog<GatewayEvent>(nc, {
          stream,
          subjectPrefix,
          parse: (raw) => v.parse(GatewayEventSchema, raw),
          replicas,
          log,
          owner: { chain: genesis, claim, adoptUnowned: adoptsWhenRelayedFrom(owner.outbox) },
        }),
      log,
      'is JetStream enabled on the NATS server (-js)?',
    );
    reportOwnership(log, opened.ownership, { stream, subjectPrefix, genesis, epoch: await opened.epoch() });
    return {
      log: opened,
      connection: nc,
      name: stream,
      dedupIdOf: dedupIdsOf(genesis),
      close: async () => {
        await nc.drain().catch(() => undefined);
      },
    };
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw err;
  }
}

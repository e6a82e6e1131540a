/**
 * One NATS connection with reconnect on and its typed lifecycle status sent to the logs,
 * shared by the NATS consumers and the publisher (docs/operations.md#market-data-on-nats).
 *
 * `url` may name several servers of one cluster, comma-separated (docs/operations.md#nats-cluster):
 * the client connects to one of them, learns the others from it, and reconnects to any that
 * answers when the one it is on dies.
 *
 * @example
 *   const nc = await connectNats('nats://127.0.0.1:4222', 'gateway-price-feed');
 *   const cluster = await connectNats('nats://a:4222,nats://b:4222,nats://c:4222', 'gateway-events');
 */
import { connect, type NatsConnection, type Status } from '@nats-io/transport-node';
import { componentLog, log as rootLog, type Logger } from '../../kernel/log.ts';

/** Status fields worth a log line, without the live objects some statuses carry. */
export function describeStatus(status: Status): { level: 'debug' | 'info' | 'warn' | 'error'; fields: Record<string, unknown> } {
  switch (status.type) {
    case 'disconnect':
      return { level: 'warn', fields: { type: status.type, server: status.server } };
    case 'reconnect':
      return { level: 'info', fields: { type: status.type, server: status.server } };
    case 'reconnecting':
    case 'ping':
    case 'update':
      return { level: 'debug', fields: { ...status } };
    case 'ldm':
      return { level: 'warn', fields: { type: status.type, server: status.server } };
    case 'error':
      return { level: 'error', fields: { type: status.type, err: status.error } };
    case 'staleConnection':
    case 'forceReconnect':
      return { level: 'warn', fields: { type: status.type } };
    case 'slowConsumer':
      return { level: 'warn', fields: { type: status.type, subject: status.sub.getSubject(), pending: status.pending } };
    case 'close':
      return { level: 'info', fields: { type: status.type } };
  }
}

/** The servers of a comma-separated list (`nats://a:4222, nats://b:4222`), trimmed, empty entries dropped. */
export function natsServers(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Connects to `url` (one server or several, comma-separated) with endless reconnects (1 s apart)
 * and logs every status change. Rejects, naming the URL, when the first connection cannot be
 * made. `watch` is told whether the connection is up: true once connected and on each reconnect,
 * false on a disconnect and when it closes (`runtime/dependency-links.ts`).
 */
export async function connectNats(url: string, name: string, logger: Logger = rootLog, watch?: (up: boolean) => void): Promise<NatsConnection> {
  const log = componentLog(logger, 'nats', { connection: name });
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: natsServers(url),
      name,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
      // a dead link is noticed in about a minute rather than the default 4+ minutes
      pingInterval: 20_000,
      maxPingOut: 3,
    });
  } catch (err) {
    throw new Error(`cannot connect to NATS at ${url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  log.info({ server: nc.getServer() }, 'connected to NATS');
  watch?.(true);
  (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') watch?.(false);
      else if (status.type === 'reconnect') watch?.(true);
      const { level, fields } = describeStatus(status);
      log[level]({ status: fields }, `NATS ${status.type}`);
    }
  })().catch((err: unknown) => log.warn({ err }, 'NATS status feed ended'));
  nc.closed().then(
    (err) => {
      watch?.(false);
      if (err) log.error({ err }, 'NATS connection closed on error');
    },
    (err: unknown) => {
      watch?.(false);
      log.error({ err }, 'NATS connection closed on error');
    },
  );
  return nc;
}

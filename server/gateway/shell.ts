/**
 * The gateway's HTTP/WebSocket shell: one uWS app with the path-rule router and the event
 * stream attached. The assembled gateway registers its handlers into `router`, broadcasts
 * through `events`, then calls `listen`.
 *
 * @example
 *   const shell = createGatewayShell({ eventLog, logger: log });
 *   shell.router.get('/state', () => readState());
 *   await shell.events.start();
 *   const port = await shell.listen(8080);
 */
import uws from 'uWebSockets.js';
import type { EventLog, LoggedEvent } from '../../adapters/store/event-log/port.ts';
import type { Logger } from '../../kernel/log.ts';
import type { TemplatedApp } from 'uWebSockets.js';
import { assertNativeUws, listenWithBacklog } from '../http/listen.ts';
import { EventStream, type EventStreamOptions } from './event-stream.ts';
import { registerEventsRoute } from './events-route.ts';
import { createGatewayRouter, type GatewayRouter } from './router.ts';

/** Options of the shell. */
export interface GatewayShellOptions<E extends LoggedEvent> {
  eventLog: EventLog<E>;
  logger: Logger;
  /** body limit of POST routes in bytes (default 16 KiB) */
  maxBodyBytes?: number;
  stream?: Omit<EventStreamOptions, 'logger'>;
  /** told of every HTTP answer (route pattern, status): the request metrics */
  answered?: (route: string, status: number) => void;
  /** pending connections the kernel may queue before the process accepts them [16384] (docs/operations.md#a-reconnect-herd) */
  listenBacklog?: number;
}

/** A running (or ready to run) gateway shell. */
export interface GatewayShell<E extends LoggedEvent> {
  app: TemplatedApp;
  router: GatewayRouter;
  events: EventStream<E>;
  /** Listens on `host:port` exclusively (port 0: a free one); resolves with the bound port, rejects with PortInUse. */
  listen(port: number, host?: string): Promise<number>;
  /** Stops listening, closes every WebSocket, and lets the requests already accepted finish (up to `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

/** Builds the shell (refusing uWS's slow JS fallback). */
export function createGatewayShell<E extends LoggedEvent>(options: GatewayShellOptions<E>): GatewayShell<E> {
  assertNativeUws();
  const app = uws.App();
  let listenSockets: uws.us_listen_socket[] = [];
  let listening: { host: string; port: number } | null = null;
  // at its most sockets the gateway stops listening: new connections are refused by the kernel at
  // once (a client goes to another gateway or comes back later) instead of being accepted into a
  // process out of file descriptors, where uWS spins on the failed accept
  const onFull = (full: boolean) => {
    if (full) {
      for (const socket of listenSockets) uws.us_listen_socket_close(socket);
      listenSockets = [];
    } else if (listening) relisten(listening);
  };
  const relisten = (at: { host: string; port: number }) => {
    listenWithBacklog(app, at.host, at.port, options.listenBacklog ?? 16_384).then(
      (sockets) => {
        if (listening === at && listenSockets.length === 0) listenSockets = sockets;
        else for (const socket of sockets) uws.us_listen_socket_close(socket);
      },
      (err: unknown) => {
        options.logger.error({ err, port: at.port }, 'listening again failed; trying again in 1 s');
        setTimeout(() => {
          if (listening === at && listenSockets.length === 0) relisten(at);
        }, 1_000).unref();
      },
    );
  };
  const events = new EventStream<E>(options.eventLog, { onFull, ...options.stream, logger: options.logger });
  events.attach(app);
  const router = createGatewayRouter(app, {
    log: options.logger,
    ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.answered ? { answered: options.answered } : {}),
  });
  registerEventsRoute(router, (since, limit) => events.page(since, limit));

  return {
    app,
    router,
    events,
    async listen(port, host = '127.0.0.1') {
      listenSockets = await listenWithBacklog(app, host, port, options.listenBacklog ?? 16_384);
      const bound = uws.us_socket_local_port(listenSockets[0] as uws.us_listen_socket);
      listening = { host, port: bound };
      return bound;
    },
    async close(graceMs = 5_000) {
      listening = null;
      for (const socket of listenSockets) uws.us_listen_socket_close(socket);
      listenSockets = [];
      events.closeAll();
      await router.drained(graceMs);
    },
  };
}

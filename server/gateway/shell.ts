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
import { assertNativeUws, listenExclusive } from '../http/listen.ts';
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
  const events = new EventStream<E>(options.eventLog, { ...options.stream, logger: options.logger });
  events.attach(app);
  const router = createGatewayRouter(app, {
    log: options.logger,
    ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.answered ? { answered: options.answered } : {}),
  });
  registerEventsRoute(router, (since, limit) => events.page(since, limit));
  let listenSocket: uws.us_listen_socket | undefined;

  return {
    app,
    router,
    events,
    async listen(port, host = '127.0.0.1') {
      const socket = await listenExclusive(app, host, port);
      listenSocket = socket;
      return uws.us_socket_local_port(socket);
    },
    async close(graceMs = 5_000) {
      if (listenSocket) uws.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
      events.closeAll();
      await router.drained(graceMs);
    },
  };
}

/**
 * Starting a uWS server: refusing the slow JS fallback, and listening exclusively so a second
 * process on the same port is an error that names the port (docs/architecture.md#http-kit).
 */
import uws from 'uWebSockets.js';
import { PortInUse } from '../../kernel/errors.ts';
import type { TemplatedApp } from 'uWebSockets.js';

/** uWS's ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

/**
 * Listens on `host:port` exclusively (no SO_REUSEPORT: a second process on the same port would
 * otherwise silently share its traffic); rejects with PortInUse. Port 0 picks a free port.
 */
export function listenExclusive(app: TemplatedApp, host: string, port: number): Promise<uws.us_listen_socket> {
  // this build's typings lack the (host, port, options, cb) overload the addon has
  const listen = app.listen.bind(app) as unknown as (h: string, p: number, options: number, cb: (socket: uws.us_listen_socket | false) => void) => void;
  return new Promise((resolve, reject) => {
    listen(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (socket) resolve(socket);
      else reject(new PortInUse(host, port));
    });
  });
}

/**
 * Refuses to run on uWS's slow JS fallback (the package falls back silently when its native
 * addon does not load). Only the native addon has H3App; the fallback has none.
 */
export function assertNativeUws(): void {
  if (typeof (uws as unknown as { H3App?: unknown }).H3App !== 'function') {
    throw new Error('uWebSockets.js native addon did not load; refusing to start on the slow fallback');
  }
}

/**
 * Starting a uWS server: refusing the slow JS fallback, and listening exclusively so a second
 * process on the same port is an error that names the port (docs/architecture.md#http-kit).
 *
 * A listen backlog sized for a herd (docs/operations.md#a-reconnect-herd): uWS asks the kernel for
 * a queue of 512 connections per listening socket and offers no way to ask for more, so a larger
 * backlog is made of several listening sockets on one port (SO_REUSEPORT; the kernel spreads new
 * connections over them), all in this process. Exclusivity then is checked instead of enforced:
 * the port must be free before, and afterwards the kernel must list exactly our sockets on it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import uws from 'uWebSockets.js';
import { PortInUse } from '../../kernel/errors.ts';
import type { TemplatedApp } from 'uWebSockets.js';

/** uWS's ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;
/** The accept queue uWS asks of each listening socket. */
export const UWS_BACKLOG = 512;

// this build's typings lack the (host, port, options, cb) overload the addon has
type ListenWithOptions = (h: string, p: number, options: number, cb: (socket: uws.us_listen_socket | false) => void) => void;

/** Listens once on `host:port` with uWS `options`; resolves with the socket or false (uWS calls back before returning). */
function listenOnce(app: TemplatedApp, host: string, port: number, options: number): uws.us_listen_socket | false {
  let result: uws.us_listen_socket | false = false;
  (app.listen.bind(app) as unknown as ListenWithOptions)(host, port, options, (socket) => {
    result = socket;
  });
  return result;
}

/** Whether Node can listen on `host:port` now (it sets no SO_REUSEPORT, so a port held by any socket fails); port 0 resolves with a free port. */
function probe(host: string, port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen({ host, port, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : null;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * Listening sockets the kernel lists on `port`, null where it cannot tell (not Linux). Asked of
 * `ss` first (a filter inside the kernel: milliseconds however many sockets the machine holds);
 * without it, /proc/net/tcp{,6} is read whole (seconds on a machine with tens of thousands of
 * sockets, while the port is already open).
 */
function listenersOn(port: number): number | null {
  try {
    const out = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\n').filter((line) => line.startsWith('LISTEN')).length;
  } catch {
    // no ss here: the kernel's tables
  }
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let count = 0;
  try {
    for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        if (fields[1]?.endsWith(hex) && fields[3] === '0A') count++;
      }
    }
  } catch {
    return null;
  }
  return count;
}

/** Whether this machine can list a port's listening sockets (Linux). */
const canListListeners = (): boolean => existsSync('/proc/net/tcp');

/**
 * Listens on `host:port` exclusively (no SO_REUSEPORT: a second process on the same port would
 * otherwise silently share its traffic); rejects with PortInUse. Port 0 picks a free port.
 */
export async function listenExclusive(app: TemplatedApp, host: string, port: number): Promise<uws.us_listen_socket> {
  const socket = listenOnce(app, host, port, LIBUS_LISTEN_EXCLUSIVE_PORT);
  if (!socket) throw new PortInUse(host, port);
  return socket;
}

/**
 * Listens on `host:port` (port 0: a free one) with room for `backlog` pending connections, and no
 * other process on the port; resolves with the listening sockets, rejects with PortInUse. Where
 * the kernel's listeners cannot be read (not Linux), or `backlog` fits one socket, it is one
 * exclusive socket.
 */
export async function listenWithBacklog(app: TemplatedApp, host: string, port: number, backlog: number): Promise<uws.us_listen_socket[]> {
  const sockets = Math.ceil(backlog / UWS_BACKLOG);
  if (sockets <= 1 || !canListListeners()) return [await listenExclusive(app, host, port)];
  const free = await probe(host, port);
  if (free === null) throw new PortInUse(host, port);
  const held: uws.us_listen_socket[] = [];
  for (let i = 0; i < sockets; i++) {
    const socket = listenOnce(app, host, free, 0);
    if (socket) held.push(socket);
  }
  // fewer sockets than asked, or another process's sockets beside ours: the port is not ours alone
  if (held.length !== sockets || listenersOn(free) !== sockets) {
    for (const socket of held) uws.us_listen_socket_close(socket);
    throw new PortInUse(host, port);
  }
  return held;
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

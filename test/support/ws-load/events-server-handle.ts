/**
 * Starting and steering the bare event stream of `events-server.ts` in its own process: the
 * commands it obeys, what it answers, and a handle to send them, kill it and start it again on the
 * same port with its seq and epoch.
 *
 * @example
 *   const server = await startEventsServer(await freePort());
 *   await server.command({ cmd: 'publish', everyMs: 100 });
 *   await server.kill();                 // SIGKILL: the sockets drop
 *   const again = await startEventsServer(server.port, { epoch: 'e1', seq: 42 });
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** A command to the events server. */
export type EventsServerCommand =
  | { cmd: 'publish'; everyMs: number } // 0 stops publishing
  | { cmd: 'close'; count: number; code: number; reason: string } // the first `count` sockets, closed with a close frame
  | { cmd: 'duplicate' } // the last event sent again to one socket
  | { cmd: 'gap' } // two events published, one socket misses the first
  | { cmd: 'state' };

/** What the server answers to every command. */
export interface EventsServerState {
  /** the last seq published */
  seq: number;
  sockets: number;
  connects: number;
  resumes: number;
  publishing: boolean;
}

/** An answer, by the id of its command. */
export interface EventsServerAnswer {
  id: number;
  state: EventsServerState;
}

/** A running events server. */
export interface EventsServer {
  readonly port: number;
  readonly pid: number;
  /** `ws://127.0.0.1:<port>/api/ws` */
  readonly url: string;
  command(cmd: EventsServerCommand): Promise<EventsServerState>;
  /** SIGKILL, resolved once it is gone */
  kill(): Promise<void>;
}

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Starts the server on `port` (its epoch and last seq given, default `e1` and 0) and resolves once it listens. */
export function startEventsServer(port: number, from: { epoch?: string; seq?: number } = {}): Promise<EventsServer> {
  const child: ChildProcess = fork(join(import.meta.dirname, 'events-server.ts'), [String(port), from.epoch ?? 'e1', String(from.seq ?? 0)], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting = new Map<number, (state: EventsServerState) => void>();
  let nextId = 1;
  child.on('error', () => undefined); // a send to a dead server fails through its callback
  child.on('message', (m: EventsServerAnswer | { listening: true }) => {
    if ('id' in m) waiting.get(m.id)?.(m.state);
  });
  const server: EventsServer = {
    port,
    pid: child.pid as number,
    url: `ws://127.0.0.1:${port}/api/ws`,
    command(cmd) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`events server: no answer to ${cmd.cmd}`)), 15_000);
        waiting.set(id, (state) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(state);
        });
        child.send({ ...cmd, id }, (err) => {
          if (err) reject(err);
        });
      });
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('events server did not listen within 20 s'));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`events server exited (${code})`));
    });
    child.once('message', () => {
      clearTimeout(timer);
      resolve(server);
    });
  });
}

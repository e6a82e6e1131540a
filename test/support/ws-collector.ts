/** A `ws` client that records every JSON message, for tests over real sockets. */
import WebSocket from 'ws';

/** A connected socket and what it received. */
export interface Collector {
  socket: WebSocket;
  messages: Array<Record<string, unknown>>;
  /** `resume` messages (sent first on a connect with `since`), kept apart from the events */
  resumes: Array<Record<string, unknown>>;
  /** Resolves once `predicate(messages)` holds (checked on every message); rejects if the socket closes first, or after `guardMs` (a hang guard, not a speed check). */
  until(predicate: (messages: Array<Record<string, unknown>>) => boolean, guardMs?: number): Promise<void>;
  closed: Promise<number>;
  close(): void;
}

/** Connects to `url` and resolves once open. Rejects with the HTTP status on a refused upgrade. */
export function collect(url: string): Promise<Collector> {
  const socket = new WebSocket(url);
  const messages: Array<Record<string, unknown>> = [];
  const resumes: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  let isClosed = false;
  const closed = new Promise<number>((resolve) =>
    socket.once('close', (code) => {
      isClosed = true;
      for (const w of waiters) w();
      resolve(code);
    }),
  );
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    (message.type === 'resume' ? resumes : messages).push(message);
    for (const w of waiters) w();
  });
  const collector: Collector = {
    socket,
    messages,
    resumes,
    closed,
    close: () => socket.close(),
    until: (predicate, guardMs = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const guard = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`condition did not hold; ${messages.length} messages: ${JSON.stringify(messages.map((m) => m.seq))}`));
        }, guardMs);
        const check = () => {
          if (predicate(messages)) {
            waiters.delete(check);
            clearTimeout(guard);
            resolve();
          } else if (isClosed) {
            waiters.delete(check);
            clearTimeout(guard);
            reject(new Error(`socket closed after ${messages.length} messages before the condition held`));
          }
        };
        waiters.add(check);
        check();
      }),
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(collector));
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    socket.once('error', reject);
  });
}

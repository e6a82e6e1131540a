/**
 * A TCP proxy for benchmarks: everything between a client and a server passes through it, each
 * chunk held `oneWayMs` in each direction (so a request/response round trip costs 2 x oneWayMs
 * more, as against a remote node), and JSON-RPC calls sent through it are counted (every
 * `"method":` in what clients send; batch entries count one each).
 *
 * @example
 *   const proxy = await startLatencyProxy(chainPort, 25);
 *   // point the gateway at http://127.0.0.1:${proxy.port}; later: proxy.calls()
 */
import { createServer, connect, type Socket } from 'node:net';

/** A running proxy. */
export interface LatencyProxy {
  port: number;
  /** JSON-RPC calls counted since the start or the last `reset()` */
  calls(): number;
  reset(): void;
  /** changes the delay of every chunk from now on */
  setDelay(oneWayMs: number): void;
  stop(): Promise<void>;
}

const METHOD = Buffer.from('"method":');

function countMethods(chunk: Buffer): number {
  let n = 0;
  for (let at = chunk.indexOf(METHOD); at !== -1; at = chunk.indexOf(METHOD, at + METHOD.length)) n++;
  return n;
}

/** Pipes `from` into `to`, each chunk `delayMs` late (order kept: equal delays fire in order). */
function relay(from: Socket, to: Socket, delay: () => number, seen: (chunk: Buffer) => void): void {
  from.on('data', (chunk: Buffer) => {
    seen(chunk);
    const ms = delay();
    if (ms <= 0) to.write(chunk);
    else setTimeout(() => to.write(chunk), ms);
  });
  from.on('end', () => setTimeout(() => to.end(), delay()));
  from.on('error', () => to.destroy());
}

/** Starts a proxy on a free loopback port in front of `targetPort`. */
export async function startLatencyProxy(targetPort: number, oneWayMs: number): Promise<LatencyProxy> {
  let calls = 0;
  let delayMs = oneWayMs;
  const delay = () => delayMs;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    relay(client, upstream, delay, (chunk) => (calls += countMethods(chunk)));
    relay(upstream, client, delay, () => undefined);
    const forget = () => {
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', forget);
    upstream.on('close', forget);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    calls: () => calls,
    reset: () => {
      calls = 0;
    },
    setDelay: (ms) => {
      delayMs = ms;
    },
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

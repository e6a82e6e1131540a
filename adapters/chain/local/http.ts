/**
 * JSON-RPC over plain node:http for the local chain (internal, loopback by default):
 * POST / with a JSON body; GET /health answers "ok" like a validator. A throttle (the fault
 * profile's 429 bursts, docs/operations.md#a-fault-profile) may answer a POST instead.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PortInUse } from '../../../kernel/errors.ts';
import type { JsonRpcDispatcher } from './json-rpc.ts';

const MAX_BODY = 1024 * 1024;

/** A POST answered without being dispatched: HTTP 429, `Retry-After` and a JSON-RPC error body. */
export interface Throttled {
  retryAfterS: number;
  body: string;
}

/** Decides, per POST body, whether it is answered 429. */
export interface Throttle {
  answer(body: string): Throttled | null;
}

/** Starts the HTTP front of the dispatcher; resolves once listening. */
export async function listenJsonRpc(
  dispatcher: JsonRpcDispatcher,
  host: string,
  port: number,
  throttle: Throttle | null = null,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      const text = Buffer.concat(chunks).toString('utf8');
      const throttled = throttle?.answer(text);
      if (throttled) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(throttled.retryAfterS) }).end(throttled.body);
        return;
      }
      dispatcher.handleText(text).then(
        (body) => {
          if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        },
        () => {
          if (!res.destroyed) res.writeHead(500).end();
        },
      );
    });
    req.on('error', () => res.destroy());
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new PortInUse(host, port) : err));
    server.listen({ port, host, exclusive: true }, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

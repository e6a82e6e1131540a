/**
 * How the HTTP transport names what went wrong, over real sockets: a 429 is `RateLimited` with
 * its Retry-After; a refused connection is `ChainUnreachable` (nothing was delivered); a JSON-RPC
 * "too many requests" error is `RateLimited` too.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainUnreachable, HttpTransport, RateLimited, RpcClient, retryAfterMs } from './rpc-client.ts';

describe('HttpTransport failures', () => {
  let server: Server;
  let url = '';
  let answer: (res: ServerResponse) => void = () => undefined;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('HTTP 429 with Retry-After is RateLimited for that long', async () => {
    answer = (res) => res.writeHead(429, { 'retry-after': '3' }).end('{"jsonrpc":"2.0","id":1,"error":{"code":429,"message":"Too many requests"}}');
    const err = await new RpcClient(new HttpTransport(url), 0).call('getSlot', [], v.number()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimited);
    expect((err as RateLimited).retryAfterMs).toBe(3000);
  });

  it('a read waits out a 429 within its budget and is made again; a send is not', async () => {
    let calls = 0;
    answer = (res) => {
      calls++;
      if (calls === 1) res.writeHead(429, { 'retry-after': '1' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"result":42}');
    };
    await expect(new RpcClient(new HttpTransport(url)).call('getSlot', [], v.number())).resolves.toBe(42);
    expect(calls).toBe(2);
    calls = 0;
    await expect(new RpcClient(new HttpTransport(url)).call('sendTransaction', ['AA=='], v.unknown())).rejects.toBeInstanceOf(RateLimited);
    expect(calls).toBe(1);
  });

  it('a JSON-RPC "too many requests" error is RateLimited', async () => {
    answer = (res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"error":{"code":-32429,"message":"rate limited"}}');
    await expect(new RpcClient(new HttpTransport(url), 0).call('getSlot', [], v.number())).rejects.toBeInstanceOf(RateLimited);
  });

  it('a refused connection is ChainUnreachable', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(new RpcClient(new HttpTransport(`http://127.0.0.1:${port}`)).call('getSlot', [], v.number())).rejects.toBeInstanceOf(ChainUnreachable);
  });

  it('Retry-After in seconds or as a date; a second when absent or unreadable', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(undefined)).toBe(1000);
    expect(retryAfterMs('soon')).toBe(1000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 5_000)).toBe(5_000);
  });
});

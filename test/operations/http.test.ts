/**
 * HTTP hygiene of both services over raw sockets (where uWebSockets.js lets us): HEAD answers
 * the GET headers without a body and keeps the connection usable; another method on a known
 * path is 405 with `Allow` and a JSON body; an unknown path 404 JSON; `GET /api/ws` without an
 * upgrade says it needs one; a body over the limit is 413 and the connection is closed; a header
 * block too large to parse gets the connection closed at once, not held.
 *
 * Not covered, because uWS 20.30 (the newest build that loads on this glibc) decides before any
 * JavaScript runs: a method outside uWS's own table (e.g. `BREW`) is dropped, and a request
 * with more than about 50 header lines waits for uWS's 10 s idle timeout.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, type ServiceProcess } from '../support/servers.ts';

/** Writes `requests` (raw HTTP) on one connection, one after another's answer; returns what came back and whether the server closed it. */
function exchangeRaw(port: number, requests: string[], waitMs = 400): Promise<{ replies: string; closed: boolean; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let replies = '';
    let closed = false;
    let closedAfterMs = -1;
    socket.on('data', (d) => (replies += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      closedAfterMs = Date.now() - started;
    });
    void (async () => {
      for (const r of requests) {
        if (closed) break;
        socket.write(r);
        await new Promise((x) => setTimeout(x, waitMs));
      }
      const result = { replies, closed, closedAfterMs };
      socket.destroy();
      resolve(result);
    })().catch(reject);
  });
}

const statusLines = (raw: string) => [...raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
const header = (raw: string, name: string) => raw.match(new RegExp(`^${name}: (.*)\\r$`, 'mi'))?.[1];
const req = (method: string, path: string, extra = '') => `${method} ${path} HTTP/1.1\r\nHost: t\r\n${extra}\r\n`;

let gateway: ServiceProcess;
let exchange: ServiceProcess;
const ports = { gw: 0, ex: 0, mgmt: 0 };
beforeAll(async () => {
  [ports.gw, ports.ex, ports.mgmt] = [await freePort(), await freePort(), await freePort()];
  [gateway, exchange] = await Promise.all([
    startService('gateway', { GATEWAY_PORT: String(ports.gw), NATS_URL: '', REDIS_URL: '', SOLANA_RPC_URL: '' }, ports.gw, 120_000),
    startService(
      'exchange',
      { EXCHANGE_PORT: String(ports.ex), EXCHANGE_MGMT_PORT: String(ports.mgmt), NATS_URL: '', REDIS_URL: '', EXCHANGE_FEED: 'synthetic' },
      ports.mgmt,
    ),
  ]);
}, 150_000);
afterAll(async () => {
  await Promise.all([gateway?.stop(), exchange?.stop()]);
});

describe.each([
  ['gateway', () => ports.gw, '/api/state', '/api/bet'],
  ['exchange', () => ports.ex, '/api/v1/prices', '/api/v1/accounts'],
])('%s', (_name, port, getPath, postPath) => {
  it('HEAD: the GET headers, no body, and the connection stays usable', async () => {
    const get = await exchangeRaw(port(), [req('GET', getPath)]);
    const both = await exchangeRaw(port(), [req('HEAD', getPath), req('GET', getPath)]);
    expect(statusLines(both.replies)).toEqual([200, 200]);
    expect(both.closed).toBe(false);
    const headEnd = both.replies.indexOf('\r\n\r\n') + 4;
    expect(both.replies.slice(headEnd).startsWith('HTTP/1.1 200')).toBe(true); // no body between the two replies
    expect(header(both.replies, 'Content-Length')).toBe(header(get.replies, 'Content-Length'));
  });

  it('another method on a known path: 405 with Allow and a JSON {error}, connection kept', async () => {
    for (const method of ['PATCH', 'TRACE', 'DELETE']) {
      const r = await exchangeRaw(port(), [req(method, getPath), req('GET', getPath)]);
      expect(statusLines(r.replies), method).toEqual([405, 200]);
      expect(header(r.replies, 'Allow'), method).toMatch(/GET/);
      expect(JSON.parse(r.replies.slice(r.replies.indexOf('{'), r.replies.indexOf('}') + 1)).error, method).toEqual(expect.any(String));
    }
  });

  it('an unknown path: 404 with a JSON {error}', async () => {
    const r = await exchangeRaw(port(), [req('GET', '/nothing/here')]);
    expect(statusLines(r.replies)).toEqual([404]);
    expect(header(r.replies, 'Content-Type')).toBe('application/json');
  });

  it('a body over the limit: 413 JSON, and the connection is closed', async () => {
    const body = 'x'.repeat(200_000);
    const r = await exchangeRaw(
      port(),
      [`POST ${postPath} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
      1_000,
    );
    expect(statusLines(r.replies)).toEqual([413]);
    expect(r.closed).toBe(true);
  });

  it('a header block too large to parse: the connection is closed at once, not held open', async () => {
    const r = await exchangeRaw(port(), [`GET ${getPath} HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(300_000)}\r\n\r\n`], 2_500);
    expect(r.closed).toBe(true);
    expect(r.closedAfterMs).toBeLessThan(2_000);
  });
});

it('gateway: GET /api/ws without an upgrade says it needs a WebSocket upgrade (426)', async () => {
  const r = await exchangeRaw(ports.gw, [req('GET', '/api/ws')]);
  expect(statusLines(r.replies)).toEqual([426]);
  expect(r.replies).toMatch(/"error":".*WebSocket.*[Uu]pgrade/);
});

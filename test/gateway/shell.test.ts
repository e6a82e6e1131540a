/**
 * The gateway shell over real sockets: path rules of docs/gateway-api.md#path-rules (fetch), and
 * the WebSocket stream of docs/gateway-api.md#events (the `ws` package): snapshot, fan-out, `since`
 * replay (under load: stream-replay.test.ts).
 */
import type { Sequenced } from '../../adapters/store/event-log/port.ts';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../adapters/store/event-log/memory.ts';
import { HttpError } from '../../server/http/reply.ts';
import { createGatewayShell, type GatewayShell } from '../../server/gateway/shell.ts';
import { respond } from '../../server/gateway/router.ts';
import { parseBetBodyA } from '../../server/gateway/wire.ts';
import { defineRoute, type HttpMethod } from '../../server/http/route-spec.ts';
import { json as jsonResponse } from '../../server/openapi/document.ts';
import * as v from 'valibot';
import { collect } from '../support/ws-collector.ts';
import { setTimeout as sleep } from 'node:timers/promises';

type TestEvent = { type: 'price'; symbol: 'solusdt'; price: string; ts: number } | { type: 'bet_open'; id: string };

let shell: GatewayShell<TestEvent>;
/** A test route: any JSON body, answered 200 or 201 */
const route = (method: HttpMethod, path: string) =>
  defineRoute({ method, path, summary: path, responses: { 200: jsonResponse('any', v.unknown()), 201: jsonResponse('any', v.unknown()) } });
let base: string;
let wsBase: string;
const errorsLogged: unknown[] = [];

beforeAll(async () => {
  const errorLogger = pino({ level: 'error' }, { write: (line: string) => errorsLogged.push(JSON.parse(line)) });
  shell = createGatewayShell<TestEvent>({ eventLog: createMemoryEventLog<TestEvent>(), logger: errorLogger, maxBodyBytes: 1024 });
  const { router } = shell;
  router.get(route('get', '/state'), () => ({ counter: '0' }));
  router.get(route('get', '/balance/{address}'), ({ params }) => ({ address: params.address }));
  router.get(route('get', '/boom'), () => {
    throw new Error('kaboom');
  });
  router.get(route('get', '/conflict'), () => {
    throw new HttpError(409, { error: 'an open bet must be closed before placing a new one', openBetId: '5' });
  });
  router.get(route('get', '/slow'), async () => {
    await sleep(30);
    return respond(201, { late: true }, [['X-Test', 'yes']]);
  });
  router.post(route('post', '/wallet'), ({ body }) => ({ address: 'NEW', body }), { requireJsonBody: true });
  router.post(route('post', '/bet'), ({ body }) => {
    const bet = parseBetBodyA(body);
    return { side: bet.side, amountUnits: String(bet.amountUnits) };
  });
  router.post(route('post', '/echo'), ({ body, headers, query }) => ({ body, contentType: headers['content-type'], q: query.get('q') }));
  await shell.events.start();
  const port = await shell.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
  wsBase = `ws://127.0.0.1:${port}`;
});

afterAll(() => shell.close());

async function call(method: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${base}${path}`, { method, ...init });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined, headers: res.headers };
}

const json = (body: unknown): RequestInit => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('path rules (docs/gateway-api.md#path-rules, #errors)', () => {
  it('serves GET routes under /api and without it, with CORS on every reply', async () => {
    for (const path of ['/api/state', '/state']) {
      const r = await call('GET', path);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ counter: '0' });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('content-type')).toBe('application/json');
    }
    expect((await call('GET', '/api/balance/Abc123')).body).toEqual({ address: 'Abc123' });
    expect((await call('GET', '/balance/Abc%20d')).body).toEqual({ address: 'Abc d' });
    expect((await call('GET', '/api/state?x=1')).status).toBe(200);
  });

  it('answers POST /wallet and POST /bet without /api with 405', async () => {
    for (const path of ['/wallet', '/bet']) {
      const r = await call('POST', path, json({}));
      expect(r.status).toBe(405);
      expect(r.body).toMatchObject({ error: expect.any(String) });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('answers POST /api/wallet without Content-Type: application/json or without a body with 405', async () => {
    expect((await call('POST', '/api/wallet')).status).toBe(405);
    expect((await call('POST', '/api/wallet', { body: '{}' })).status).toBe(405); // fetch sends text/plain
    expect((await call('POST', '/api/wallet', { headers: { 'Content-Type': 'application/json' } })).status).toBe(405);
    const ok = await call('POST', '/api/wallet', json({}));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ address: 'NEW', body: {} });
    expect((await call('POST', '/api/wallet', { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '{}' })).status).toBe(200);
  });

  it('answers POST /api/close and unknown paths with 404 {error}', async () => {
    for (const [method, path] of [
      ['POST', '/api/close'],
      ['POST', '/close'],
      ['GET', '/api/nope'],
      ['GET', '/nope/deeper'],
      ['DELETE', '/api/state/x'],
    ] as const) {
      const r = await call(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toMatchObject({ error: expect.any(String) });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('answers another method on a known path with 405 and Allow', async () => {
    const r = await call('GET', '/api/bet');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect((await call('POST', '/api/state', json({}))).status).toBe(405);
  });

  it('answers OPTIONS preflight with CORS headers on any path', async () => {
    for (const path of ['/api/bet', '/api/wallet', '/bet', '/api/unknown', '/api/ws']) {
      const r = await call('OPTIONS', path, { headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'POST' } });
      expect(r.status, path).toBe(204);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-allow-methods')).toContain('POST');
      expect(r.headers.get('access-control-allow-headers')).toContain('Content-Type');
    }
  });

  it('refuses bodies over the limit with 413 JSON, declared or streamed', async () => {
    const declared = await call('POST', '/api/echo', json({ pad: 'x'.repeat(2000) }));
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ error: expect.any(String) });
    expect(declared.headers.get('access-control-allow-origin')).toBe('*');
    const chunk = new TextEncoder().encode('x'.repeat(600));
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(chunk);
        c.enqueue(chunk);
        c.close();
      },
    });
    const streamed = await call('POST', '/api/echo', { body: stream, duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    // the server keeps serving
    expect((await call('POST', '/api/echo?q=1', json({ a: 1 }))).body).toEqual({ body: { a: 1 }, contentType: 'application/json', q: '1' });
  });

  it('maps HttpError to its status/body, anything else to a logged 500, and keeps serving', async () => {
    expect(await call('GET', '/api/conflict')).toMatchObject({
      status: 409,
      body: { error: 'an open bet must be closed before placing a new one', openBetId: '5' },
    });
    const boom = await call('GET', '/api/boom');
    expect(boom.status).toBe(500);
    expect(boom.body).toEqual({ error: 'internal error' });
    expect(errorsLogged.some((l) => (l as { err?: { message?: string } }).err?.message === 'kaboom')).toBe(true);
    expect((await call('GET', '/state')).status).toBe(200);
  });

  it('supports async handlers with a chosen status and headers', async () => {
    const r = await call('GET', '/api/slow');
    expect(r.status).toBe(201);
    expect(r.headers.get('x-test')).toBe('yes');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('gives 400 on a non-JSON body and the wire parser errors on a bad bet', async () => {
    expect(await call('POST', '/api/bet', { headers: { 'Content-Type': 'application/json' }, body: '{nope' })).toMatchObject({
      status: 400,
      body: { error: 'invalid JSON body' },
    });
    const amount = await call('POST', '/api/bet', json({ address: '11111111111111111111111111111111', side: 'up', amount: '100000000' }));
    expect(amount.status).toBe(400);
    expect((amount.body as { error: string }).error).toMatch(/amountUnits must be a positive integer in token base units/);
    expect((await call('POST', '/api/bet', json({ address: '11111111111111111111111111111111', side: 'up', amountUnits: 100000000 }))).body).toEqual({
      side: 'UP',
      amountUnits: '100000000',
    });
  });

  it('survives a client that goes away before an async reply', async () => {
    const controller = new AbortController();
    const pending = fetch(`${base}/api/slow`, { signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 5);
    expect(await pending).toBeInstanceOf(Error);
    await sleep(50);
    expect((await call('GET', '/state')).status).toBe(200);
  });
});

const price = (n: number): TestEvent => ({ type: 'price', symbol: 'solusdt', price: `${100 + n}.00000000`, ts: 1_763_700_000_000 + n });

describe('event stream (docs/gateway-api.md#events)', () => {
  it('refuses a malformed since with 400', async () => {
    await expect(collect(`${wsBase}/api/ws?since=abc`)).rejects.toThrow(/400/);
  });

  it('sends the price snapshot first on connect, then live events, on /api/ws and /ws', async () => {
    let snapshot: Sequenced<TestEvent> | undefined;
    shell.events.setSnapshotSource(() => snapshot);
    const none = await collect(`${wsBase}/api/ws`);
    snapshot = await shell.events.broadcast(price(1));
    await none.until((m) => m.length === 1);
    expect(none.messages[0]).toEqual(snapshot); // no snapshot before there was a price: just the live event
    for (const path of ['/api/ws', '/ws']) {
      const c = await collect(`${wsBase}${path}`);
      const live = await shell.events.broadcast({ type: 'bet_open', id: '1' });
      await c.until((m) => m.length === 2);
      expect(c.messages).toEqual([snapshot, live]);
      c.close();
    }
    none.close();
  });

  it('treats a since beyond the last seq as a restarted log: replays everything held, snapshot once', async () => {
    const c = await collect(`${wsBase}/api/ws?since=999999`);
    const end = shell.events.lastPublishedSeq;
    await c.until((m) => m.some((e) => e.seq === end));
    expect(c.messages.map((e) => e.seq)).toEqual(Array.from({ length: end }, (_, i) => i + 1));
    c.close();
  });

  it('sends a resume message first on a connect with since: recovered within the log and epoch, not otherwise; none without since', async () => {
    await shell.events.broadcast({ type: 'bet_open', id: 'r1' });
    const last = shell.events.lastPublishedSeq;
    const within = await collect(`${wsBase}/api/ws?since=${last - 1}`);
    await within.until((m) => m.some((e) => e.seq === last));
    expect(within.resumes).toEqual([{ type: 'resume', recovered: true, epoch: expect.any(String), seq: last }]);
    const epoch = within.resumes[0]!.epoch as string;
    const same = await collect(`${wsBase}/api/ws?since=${last}&epoch=${encodeURIComponent(epoch)}`);
    const beyond = await collect(`${wsBase}/api/ws?since=${last + 100}`);
    const other = await collect(`${wsBase}/api/ws?since=${last}&epoch=another`);
    const plain = await collect(`${wsBase}/api/ws`);
    for (const c of [same, beyond, other]) await c.until(() => c.resumes.length === 1);
    expect(same.resumes[0]).toEqual({ type: 'resume', recovered: true, epoch, seq: last });
    expect(beyond.resumes[0]).toMatchObject({ recovered: false, epoch });
    expect(other.resumes[0]).toMatchObject({ recovered: false, epoch });
    await other.until((m) => m.some((e) => e.seq === last));
    expect(other.messages[0]?.seq).toBe(1); // another epoch: everything held
    await sleep(50);
    expect(plain.resumes).toEqual([]);
    for (const c of [within, same, beyond, other, plain]) c.close();
  });

  it('serves the history over HTTP: GET /api/events?since&limit answers {epoch, events}; 400 for bad params', async () => {
    const last = shell.events.lastPublishedSeq;
    const page = await call('GET', `/api/events?since=${last - 2}&limit=1`);
    expect(page.status).toBe(200);
    const body = page.body as { epoch: string; events: Array<{ seq: number }> };
    expect(body.epoch).toEqual(expect.any(String));
    expect(body.events.map((e) => e.seq)).toEqual([last - 1]);
    expect(((await call('GET', '/events')).body as { events: unknown[] }).events.length).toBe(Math.min(last, 100));
    for (const bad of ['?since=-1', '?since=1.5', '?limit=0', '?limit=1001', '?limit=x', '?since=1&since=2'])
      expect((await call('GET', `/api/events${bad}`)).status, bad).toBe(400);
  });

  it('fans every event out to several sockets, in seq order', async () => {
    const clients = await Promise.all(Array.from({ length: 5 }, () => collect(`${wsBase}/api/ws`)));
    const sent: Array<Sequenced<TestEvent>> = [];
    for (let i = 0; i < 50; i++) sent.push(await shell.events.broadcast(i % 2 ? price(i) : { type: 'bet_open', id: String(i) }));
    const last = sent[sent.length - 1]?.seq;
    for (const c of clients) {
      await c.until((m) => m.some((e) => e.seq === last));
      const afterSnapshot = c.messages.slice(c.messages.findIndex((e) => e.seq === sent[0]?.seq));
      expect(afterSnapshot).toEqual(sent);
      c.close();
    }
  });
});

/** A log whose reads take a real turn of the event loop, so replays interleave with appends. */

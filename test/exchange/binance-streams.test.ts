/**
 * Binance's market streams, black-box (docs/exchange-api.md#binance-market-streams): raw and
 * combined connections, live SUBSCRIBE / UNSUBSCRIBE / LIST_SUBSCRIPTIONS, book tickers, partial
 * books, and diff updates that a client syncs with REST depth by Binance's own algorithm.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { publishBook } from '../../adapters/feed/publisher.ts';
import { exchangeForSuite } from './harness.ts';
import { binanceCall } from './binance-support.ts';
import { book } from './support.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const t = exchangeForSuite();
const sockets: WebSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.terminate();
});

/** Retries `check` until it passes (5 s). */
const eventually = (check: () => unknown) => vi.waitFor(check, { timeout: 5_000, interval: 50 });

/** A connection that keeps every message it receives. */
async function connect(path: string): Promise<{ ws: WebSocket; messages: any[]; send(m: unknown): void }> {
  const ws = new WebSocket(t.baseUrl.replace('http', 'ws') + path);
  sockets.push(ws);
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, messages, send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)) };
}

let clock = Date.now();
/** Publishes a BTC book a little newer than the last one. */
const publishBtc = (bids: [string, string][], asks: [string, string][]) => {
  clock = Math.max(clock + 1, Date.now());
  publishBook(t.nc, book('BTCUSDT', bids, asks, clock));
};

describe('market streams', () => {
  it('sends book tickers on /ws/<stream> as they are, and wrapped as {stream, data} on /stream', async () => {
    const raw = await connect('/ws/btcusdt@bookTicker');
    const combined = await connect('/stream?streams=btcusdt@bookTicker/solusdt@bookTicker');
    publishBtc([['99.50', '3']], [['100.50', '4']]);
    await eventually(() => expect(raw.messages.some((m) => m.b === '99.50000000')).toBe(true));
    const tick = raw.messages.find((m) => m.b === '99.50000000');
    expect(tick).toEqual({ u: expect.any(Number), s: 'BTCUSDT', b: '99.50000000', B: '3.00000000', a: '100.50000000', A: '4.00000000' });
    await eventually(() => expect(combined.messages.some((m) => m.data?.b === '99.50000000')).toBe(true));
    expect(combined.messages.find((m) => m.data?.b === '99.50000000')).toEqual({ stream: 'btcusdt@bookTicker', data: tick });
  });

  it('answers SUBSCRIBE, UNSUBSCRIBE and LIST_SUBSCRIPTIONS with {result, id}, and refuses bad requests', async () => {
    const c = await connect('/ws/0');
    c.send({ method: 'SUBSCRIBE', params: ['btcusdt@depth5@100ms', 'solusdt@bookTicker'], id: 1 });
    c.send({ method: 'LIST_SUBSCRIPTIONS', id: 2 });
    c.send({ method: 'UNSUBSCRIBE', params: ['solusdt@bookTicker'], id: 'three' });
    c.send({ method: 'LIST_SUBSCRIPTIONS', id: 4 });
    await eventually(() => expect(c.messages.filter((m) => 'id' in m).length).toBe(4));
    // at most 5 control messages a second: the rest go in the next second
    await sleep(1020 - (Date.now() % 1000));
    c.send({ method: 'SUBSCRIBE', params: ['dogeusdt@bookTicker'], id: 5 });
    c.send({ method: 'FLY', id: 6 });
    c.send('{not json');
    await eventually(() => expect(c.messages.filter((m) => 'id' in m).length).toBe(7));
    const answers = c.messages.filter((m) => 'id' in m);
    expect(answers.slice(0, 4)).toEqual([
      { result: null, id: 1 },
      { result: expect.arrayContaining(['btcusdt@depth5@100ms', 'solusdt@bookTicker']), id: 2 },
      { result: null, id: 'three' },
      { result: ['btcusdt@depth5@100ms'], id: 4 },
    ]);
    expect(answers[4]).toMatchObject({ error: { code: 2 }, id: 5 });
    expect(answers[5]).toMatchObject({ error: { code: 2 }, id: 6 });
    expect(answers[6]).toMatchObject({ error: { code: 3 } });
    publishBtc([['99.25', '1']], [['100.25', '2']]);
    await eventually(() => expect(c.messages.some((m) => m.lastUpdateId !== undefined && m.bids?.[0]?.[0] === '99.25000000')).toBe(true));
    const partial = c.messages.find((m) => m.bids?.[0]?.[0] === '99.25000000');
    expect(partial).toEqual({ lastUpdateId: expect.any(Number), bids: [['99.25000000', '1.00000000']], asks: [['100.25000000', '2.00000000']] });
  });

  it("keeps a local book in step with REST depth by Binance's algorithm: buffer, snapshot, drop u <= lastUpdateId, first U <= lastUpdateId+1 <= u", async () => {
    const c = await connect('/ws/btcusdt@depth@100ms');
    const levels = (n: number, base: number, step: number): [string, string][] =>
      Array.from({ length: 5 }, (_, i) => [(base + step * i).toFixed(2), String(((n + i) % 4) + 1)]);
    for (let i = 0; i < 10; i++) {
      publishBtc(levels(i, 99 - (i % 3) * 0.01, -0.01), levels(i, 100 + (i % 2) * 0.01, 0.01));
      await sleep(15);
    }
    const snapshot = (await binanceCall(t.baseUrl, 'GET', '/api/v3/depth', 'symbol=BTCUSDT&limit=5000')).body;
    for (let i = 10; i < 30; i++) {
      publishBtc(levels(i, 99 - (i % 5) * 0.01, -0.01), levels(i, 100 + (i % 3) * 0.01, 0.01));
      await sleep(15);
    }
    const finalBook = () => binanceCall(t.baseUrl, 'GET', '/api/v3/depth', 'symbol=BTCUSDT&limit=5000');
    await eventually(async () => {
      const events = c.messages.filter((m) => m.e === 'depthUpdate');
      const after = events.filter((e) => e.u > snapshot.lastUpdateId);
      expect(after.length).toBeGreaterThan(0);
      expect(after[0].U).toBeLessThanOrEqual(snapshot.lastUpdateId + 1);
      expect(after[0].u).toBeGreaterThanOrEqual(snapshot.lastUpdateId + 1);
      for (let i = 1; i < after.length; i++) expect(after[i].U).toBe(after[i - 1].u + 1);
      const bids = new Map<string, string>(snapshot.bids);
      const asks = new Map<string, string>(snapshot.asks);
      for (const e of after) {
        for (const [p, q] of e.b) q === '0.00000000' ? bids.delete(p) : bids.set(p, q);
        for (const [p, q] of e.a) q === '0.00000000' ? asks.delete(p) : asks.set(p, q);
        expect(e).toMatchObject({ e: 'depthUpdate', E: expect.any(Number), s: 'BTCUSDT' });
      }
      const now = (await finalBook()).body;
      expect(after[after.length - 1].u).toBe(now.lastUpdateId);
      expect([...bids.entries()].sort((a, b) => Number(b[0]) - Number(a[0]))).toEqual(now.bids);
      expect([...asks.entries()].sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(now.asks);
    });
  });

  it('closes a connection that sends more than 5 control messages a second, as Binance does', async () => {
    const c = await connect('/ws/0');
    const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)));
    for (let i = 1; i <= 8; i++) c.send({ method: 'LIST_SUBSCRIPTIONS', id: i });
    expect(await closed).toBe(1008);
    expect(c.messages.filter((m) => 'result' in m).length).toBeLessThanOrEqual(5);
  });

  it('leaves names it does not serve out of a connection path, as Binance does', async () => {
    const c = await connect('/ws/dogeusdt@bookTicker/btcusdt@bookTicker');
    c.send({ method: 'LIST_SUBSCRIPTIONS', id: 1 });
    await eventually(() => expect(c.messages.find((m) => m.id === 1)).toEqual({ result: ['btcusdt@bookTicker'], id: 1 }));
  });
});

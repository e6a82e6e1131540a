/**
 * Black-box helpers for exchange suites: a JSON client that fails on any JSON number in a
 * response (docs/exchange-api.md#conventions), book builders, and a NATS publisher that waits until the exchange
 * has the book.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { Decimal } from 'decimal.js';
import { publishBook } from '../../adapters/feed/publisher.ts';
import { checkAnswer } from '../support/openapi-contract.ts';
import type { BookLevel, BookSnapshot } from '../../adapters/feed/port.ts';
import type { BookSymbol } from '../../kernel/domain.ts';

/** An HTTP answer with its parsed JSON body. */
export interface Response<T = any> {
  status: number;
  body: T;
  text: string;
}

/** Paths in a JSON text whose value is a JSON number. */
export function jsonNumbersIn(text: string): string[] {
  const found: string[] = [];
  JSON.parse(text, function (this: unknown, key, value: unknown) {
    if (typeof value === 'number') found.push(`${key}=${String(value)}`);
    return value;
  });
  return found;
}

/**
 * A client of one exchange. Every JSON answer is checked: a JSON number anywhere throws, and
 * every answer must match the exchange's OpenAPI document (served by `documentBase`, the API
 * port: the management port's routes are in the same document).
 */
export function client(base: string, documentBase = base) {
  async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const res = await fetch(base + path, init);
    const text = await res.text();
    await checkAnswer(documentBase, { method, path, status: res.status, contentType: res.headers.get('content-type'), text });
    if (text.length > 0) {
      const numbers = jsonNumbersIn(text);
      if (numbers.length > 0) throw new Error(`JSON number in ${method} ${path}: ${numbers.join(', ')} in ${text}`);
    }
    return { status: res.status, body: text.length > 0 ? (JSON.parse(text) as T) : (undefined as T), text };
  }
  return {
    /** the exchange's base URL (`http://127.0.0.1:<port>`) */
    base,
    get: <T = any>(path: string) => call<T>('GET', path),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('POST', path, body, headers),
    put: <T = any>(path: string, body?: unknown) => call<T>('PUT', path, body),
    del: <T = any>(path: string) => call<T>('DELETE', path),
    call,
  };
}
/** A client of one exchange. */
export type Client = ReturnType<typeof client>;

/** A book from [price, qty] pairs (numbers written as decimal strings). */
export function book(symbol: BookSymbol, bids: [string, string][], asks: [string, string][], ts = Date.now()): BookSnapshot {
  return { symbol, bids: bids as BookLevel[], asks: asks as BookLevel[], ts };
}

/** Publishes `b` and waits until `GET /prices/{symbol}` shows its best bid/ask (or its 503 when stale). */
export async function publishAndWait(nc: NatsConnection, api: Client, b: BookSnapshot, timeoutMs = 20_000): Promise<void> {
  const bid = new Decimal(b.bids[0]![0]).toFixed(8);
  const ask = new Decimal(b.asks[0]![0]).toFixed(8);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    publishBook(nc, b);
    await nc.flush();
    const r = await api.get(`/api/v1/prices/${b.symbol}`);
    if (r.status === 200 && r.body.bid === bid && r.body.ask === ask && r.body.ts === new Date(b.ts).toISOString()) return;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`book of ${b.symbol} did not reach the exchange`);
}

/**
 * Publishes `b` (a book the exchange will not show, e.g. a stale one), then `barrier` (a fresh
 * book of another symbol) and waits for the barrier: one connection's messages arrive in order,
 * so `b` has been taken by then.
 */
export async function publishBehind(nc: NatsConnection, api: Client, b: BookSnapshot, barrier: BookSnapshot): Promise<void> {
  publishBook(nc, b);
  await publishAndWait(nc, api, barrier);
}

/** Decimal from a string. */
export const D = (s: string): Decimal => new Decimal(s);
/** Shapes of wire values. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const MONEY = /^-?\d+\.\d{10}$/;
export const PRICE8 = /^\d+\.\d{8}$/;

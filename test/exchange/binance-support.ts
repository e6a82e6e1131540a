/**
 * Black-box helpers for the Binance-shaped surface (docs/exchange-api.md#binance-spot-api): plain
 * and signed requests (HMAC-SHA256 or Ed25519, as a Binance client signs them), and API keys
 * created through the native API.
 */
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { expect } from 'vitest';
import { checkAnswer } from '../support/openapi-contract.ts';
import type { Client } from './support.ts';

/** An answer of the Binance surface. */
export interface BinanceAnswer {
  status: number;
  body: any;
  headers: Headers;
  /** X-MBX-USED-WEIGHT-1M as a number */
  weight: number;
}

/** How a request is signed. */
export type Signing = { apiKey: string; secretKey: string } | { apiKey: string; privateKey: KeyObject };

/** Sends one request (its answer checked against the OpenAPI document); `query` and `body` are form strings as sent. */
export async function binanceCall(
  base: string,
  method: string,
  path: string,
  query = '',
  body = '',
  headers: Record<string, string> = {},
): Promise<BinanceAnswer> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== '') {
    init.body = body;
    (init.headers as Record<string, string>)['content-type'] = 'application/x-www-form-urlencoded';
  }
  const res = await fetch(`${base}${path}${query === '' ? '' : `?${query}`}`, init);
  const text = await res.text();
  // every answer must be what the served OpenAPI document says (docs/contributing.md#tests)
  await checkAnswer(base, {
    method,
    path: `${path}${query === '' ? '' : `?${query}`}`,
    status: res.status,
    contentType: res.headers.get('content-type'),
    text,
  });
  return {
    status: res.status,
    body: text === '' ? undefined : JSON.parse(text),
    headers: res.headers,
    weight: Number(res.headers.get('x-mbx-used-weight-1m')),
  };
}

/** The signature of `payload` with `signing` (hex for HMAC, URL-encoded base64 for Ed25519). */
export function signatureOf(signing: Signing, payload: string): string {
  if ('secretKey' in signing) return createHmac('sha256', signing.secretKey).update(payload).digest('hex');
  return encodeURIComponent(sign(null, Buffer.from(payload), signing.privateKey).toString('base64'));
}

/** A signed request: `timestamp` added to `params` (unless given), the signature appended to the body when there is one, else to the query. */
export function signedCall(
  base: string,
  method: string,
  path: string,
  signing: Signing,
  params: Record<string, string> = {},
  inBody: Record<string, string> = {},
) {
  const query = new URLSearchParams({ ...params, ...(params.timestamp ? {} : { timestamp: String(Date.now()) }) }).toString();
  const body = new URLSearchParams(inBody).toString();
  const signature = signatureOf(signing, query + body);
  if (body !== '') return binanceCall(base, method, path, query, `${body}&signature=${signature}`, { 'X-MBX-APIKEY': signing.apiKey });
  return binanceCall(base, method, path, `${query}&signature=${signature}`, '', { 'X-MBX-APIKEY': signing.apiKey });
}

/** Creates an HMAC key for `accountId` through the native API; its secret is shown once. */
export async function hmacKeyFor(api: Client, accountId: string): Promise<{ apiKey: string; secretKey: string }> {
  const r = await api.post(`/api/v1/accounts/${accountId}/api-keys`, { type: 'HMAC_SHA256' });
  expect(r.status).toBe(201);
  return { apiKey: r.body.apiKey as string, secretKey: r.body.secretKey as string };
}

/** Registers a fresh Ed25519 public key for `accountId`; the private half stays with the test. */
export async function ed25519KeyFor(api: Client, accountId: string): Promise<{ apiKey: string; privateKey: KeyObject }> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const r = await api.post(`/api/v1/accounts/${accountId}/api-keys`, {
    type: 'ED25519',
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  });
  expect(r.status).toBe(201);
  expect(r.body.secretKey).toBeUndefined();
  return { apiKey: r.body.apiKey as string, privateKey };
}

/** `{code, msg}` with the status, code and (when given) message expected. */
export function expectCode(r: { status: number; body: any }, status: number, code: number, msg?: string): void {
  expect({ status: r.status, code: r.body?.code, ...(msg === undefined ? {} : { msg: r.body?.msg }) }).toEqual({
    status,
    code,
    ...(msg === undefined ? {} : { msg }),
  });
}

/** Shortcuts of the order tests over one running exchange. */
export function orderClient(t: { api: Client; baseUrl: string; openAccount(name: string, cash?: string): Promise<string> }) {
  const call = (key: Signing, method: string, path: string, params: Record<string, string>) =>
    method === 'GET' ? signedCall(t.baseUrl, method, `/api/v3${path}`, key, params) : signedCall(t.baseUrl, method, `/api/v3${path}`, key, {}, params);
  return {
    /** An account with `cash` and an HMAC key. */
    async trader(name: string, cash = '10000'): Promise<{ id: string; key: Signing }> {
      const id = await t.openAccount(name, cash);
      return { id, key: await hmacKeyFor(t.api, id) };
    },
    /** POST /api/v3/order with `order` in a form body. */
    place: (key: Signing, order: Record<string, string>) => call(key, 'POST', '/order', order),
    /** A signed call of /api/v3`path`: GET in the query, others in a form body. */
    call,
    /** One asset's `{free, locked}` from `account`. */
    async balanceOf(key: Signing, asset: string): Promise<{ free: string; locked: string }> {
      const b = (await signedCall(t.baseUrl, 'GET', '/api/v3/account', key)).body.balances.find((x: any) => x.asset === asset);
      return { free: b.free, locked: b.locked };
    },
  };
}

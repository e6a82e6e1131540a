/**
 * The edges every POST of all three HTTP surfaces shares (docs/architecture.md#http-kit), over
 * real sockets against real processes: bodies nested 30,000 deep, bodies of every size up to the
 * limit and past it (413 exactly past it, never a 5xx), and concurrent identical faucet calls,
 * each of which is a grant (docs/gateway-api.md#faucet).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';
import { startTestExchange, type TestExchange } from './support/exchange.ts';
import { send as sendRaw } from './support/raw-request.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
/** A JSON request (`chunked`: no Content-Length). */
const send = (base: string, method: string, path: string, body: Buffer | null, headers: Record<string, string> = {}, chunked = false) =>
  sendRaw(base, method, path, { ...JSON_TYPE, ...headers }, body, chunked);

/** A JSON body of exactly `size` bytes (`{"pad":"xx…"}`; shorter sizes are JSON prefixes, which do not parse). */
function bodyOfSize(size: number): Buffer {
  const frame = '{"pad":""}';
  if (size < frame.length) return Buffer.from(frame.slice(0, size));
  return Buffer.from(`{"pad":"${'x'.repeat(size - frame.length)}"}`);
}

const DEEP = 30_000;
/** Nested bodies: 30,000 deep, and as deep as fits the route's limit (`limit` bytes of `[`). */
const nestedBodies = (limit: number): Array<[string, Buffer]> => {
  const objects = Math.floor((limit - 1) / 6);
  return [
    ['30,000 nested [', Buffer.from('['.repeat(DEEP))],
    ['30,000 nested [ closed', Buffer.from('['.repeat(DEEP) + ']'.repeat(DEEP))],
    ['30,000 nested {"a":', Buffer.from('{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP))],
    [`${limit} nested [ (the limit)`, Buffer.from('['.repeat(limit))],
    [`${limit / 2} nested [ closed (the limit)`, Buffer.from('['.repeat(limit / 2) + ']'.repeat(limit / 2))],
    [`${objects} nested {"a": (within the limit)`, Buffer.from('{"a":'.repeat(objects) + '1' + '}'.repeat(objects))],
    ['65 nested arrays', Buffer.from('['.repeat(65) + ']'.repeat(65))],
  ];
};

/** Every size from 0 to 300, then every 97th byte, then each byte around the limit, then far past it. */
function sizesUpTo(limit: number): number[] {
  const sizes = new Set<number>();
  for (let s = 0; s <= 300; s++) sizes.add(s);
  for (let s = 301; s < limit; s += 97) sizes.add(s);
  for (let s = limit - 16; s <= limit + 16; s++) sizes.add(s);
  for (const s of [2 * limit, 4 * limit, 1024 * 1024]) sizes.add(s);
  return [...sizes].sort((a, b) => a - b);
}

/** Sends every size at a route, 16 at a time; returns what does not hold: 413 exactly past the limit, else a 4xx/2xx with an `error` string on refusals. */
async function sweep(base: string, method: string, path: string, limit: number, headers: Record<string, string> = {}): Promise<string[]> {
  const wrong: string[] = [];
  const sizes = sizesUpTo(limit);
  for (let i = 0; i < sizes.length; i += 16) {
    await Promise.all(
      sizes.slice(i, i + 16).map(async (size) => {
        const r = await send(base, method, path, bodyOfSize(size), headers);
        const expected413 = size > limit;
        if ((r.status === 413) !== expected413 || r.status === 0 || r.status >= 500)
          wrong.push(`${method} ${path} with ${size} bytes: ${r.status} ${r.text.slice(0, 120)}`);
        else if (r.status >= 400 && typeof (JSON.parse(r.text) as { error?: unknown }).error !== 'string') wrong.push(`${size} bytes: no error string`);
      }),
    );
  }
  // a body past the limit sent without a Content-Length is refused while it is read
  const chunked = await send(base, method, path, bodyOfSize(limit * 2), headers, true);
  if (chunked.status !== 413) wrong.push(`${method} ${path} chunked ${limit * 2} bytes: ${chunked.status}`);
  return wrong;
}

/** Sends every nested body to every route; returns the answers that are not a 400 (413 past the limit) with an `error` string. */
async function nested(base: string, limit: number, routes: ReadonlyArray<readonly [string, string]>, headers: Record<string, string> = {}): Promise<string[]> {
  const wrong: string[] = [];
  for (const [method, path] of routes)
    for (const [what, body] of nestedBodies(limit)) {
      const r = await send(base, method, path, body, headers);
      const expected = body.length > limit ? 413 : 400;
      const error = r.status === expected ? (JSON.parse(r.text) as { error?: unknown }).error : undefined;
      if (typeof error !== 'string') wrong.push(`${method} ${path} with ${what} (${body.length} bytes): ${r.status} ${r.text.slice(0, 120)}`);
    }
  return wrong;
}

describe('the gateway (profiles A and B) at its edges', () => {
  let stack: GatewayStack;
  let profileB = '';
  const ADMIN = { authorization: 'Bearer edge-admin-token' };
  beforeAll(async () => {
    stack = await startGatewayStack({ GW_ADMIN_TOKEN: 'edge-admin-token' });
    await stack.tick('150.12345678');
    profileB = (await stack.extraGateway({ GW_PROFILE: 'B' })).base;
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('a body nested 30,000 deep, or as deep as the limit allows, is a 400 {error} on every POST (413 past the limit), never a 500', async () => {
    const routes = [
      ['POST', '/api/wallet'],
      ['POST', '/api/bet'],
      ['POST', '/api/admin/pause'],
    ] as const;
    expect(await nested(stack.base, 16 * 1024, routes, ADMIN)).toEqual([]);
    expect(await nested(profileB, 16 * 1024, [['POST', '/api/bet']])).toEqual([]);
  }, 120_000);

  it('bodies of every size up to 16 KiB and past it: 413 exactly past the limit', async () => {
    expect(await sweep(stack.base, 'POST', '/api/bet', 16 * 1024)).toEqual([]);
    expect(await sweep(stack.base, 'POST', '/api/admin/pause', 16 * 1024, ADMIN)).toEqual([]);
  }, 240_000);

  it('six identical concurrent faucet calls are six grants', async () => {
    const wallet = await send(stack.base, 'POST', '/api/wallet', Buffer.from('{}'));
    const { address } = JSON.parse(wallet.text) as { address: string };
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(stack.base, 'GET', `/api/faucet/${address}`, null)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const a of answers) expect(JSON.parse(a.text)).toMatchObject({ address, sol: 5, tokenUnits: '10000000000' });
    const balance = JSON.parse((await send(stack.base, 'GET', `/api/balance/${address}`, null)).text) as { sol: number; tokenUnits: string };
    expect(balance).toMatchObject({ sol: 30, tokenUnits: '60000000000' });
  }, 120_000);
});

describe('the exchange at its edges', () => {
  let exchange: TestExchange | undefined;
  let base = '';
  let id = '';
  beforeAll(async () => {
    exchange = await startTestExchange();
    base = exchange.base;
    const created = await send(base, 'POST', '/api/v1/accounts', Buffer.from(JSON.stringify({ name: 'edges', initialCash: '1000' })));
    id = (JSON.parse(created.text) as { id: string }).id;
  }, 120_000);
  afterAll(() => exchange?.stop());

  it('a body nested 30,000 deep, or as deep as the limit allows, is a 400 {error, message} on every write (413 past the limit), never a 500', async () => {
    const routes = [
      ['POST', '/api/v1/accounts'],
      ['POST', `/api/v1/accounts/${id}/deposits`],
      ['PUT', `/api/v1/accounts/${id}/cash`],
      ['POST', `/api/v1/accounts/${id}/orders`],
    ] as const;
    expect(await nested(base, 64 * 1024, routes)).toEqual([]);
  }, 120_000);

  it('bodies of every size up to 64 KiB and past it: 413 exactly past the limit', async () => {
    expect(await sweep(base, 'POST', `/api/v1/accounts/${id}/deposits`, 64 * 1024)).toEqual([]);
  }, 240_000);
});

/**
 * Fuzzed requests for every route of both services (fast-check): methods, paths with arbitrary
 * parameters, query strings, bodies (arbitrary JSON, the right fields with wrong or hostile
 * values, lone surrogates, bytes that are not UTF-8, not JSON at all), content types and
 * Idempotency-Keys; and the check every answer must pass.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { send, type Raw } from './raw-request.ts';

// --- generators -----------------------------------------------------------------------------

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE'] as const;
const hostileText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    '0x10',
    'NaN',
    'null',
    '../..',
    '%',
    '%zz',
    '%00',
    '\u0000',
    'A'.repeat(5_000),
    '1'.repeat(400),
    '0.00000000001',
    '１２３',
  ),
);
/** A path segment as a client might send it (percent-encoded when needed). */
const segment = fc.oneof(
  hostileText.map((s) => encodeURIComponent(s)),
  fc.constantFrom(
    '%',
    '%zz',
    '%E0%A4%A',
    '%ED%A0%80',
    '..',
    '.',
    'GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ',
    '11111111111111111111111111111111',
    'BTCUSDT',
  ),
);
const query = fc.oneof(
  fc.constant(''),
  fc.dictionary(fc.constantFrom('limit', 'since', 'snapshot', 'x', 'since[]'), hostileText, { maxKeys: 3 }).map((d) => `?${new URLSearchParams(d).toString()}`),
  fc.constantFrom('?%', '?limit=%zz', '?since=&since=1'),
);

/** JSON text with a lone surrogate escape somewhere inside a string. */
const withLoneSurrogate = (fields: readonly string[]) =>
  fc.tuple(fc.constantFrom(...fields), fc.constantFrom('\\ud800', '\\udfff', 'x\\ud83d', '\\ud800\\u0041')).map(([k, esc]) => `{"${k}":"${esc}x"}`);

const hostileValue = (known: readonly string[]) =>
  fc.oneof(
    fc.jsonValue(),
    hostileText,
    fc.constantFrom(
      -1,
      0,
      1e308,
      -0.5,
      Number.MAX_SAFE_INTEGER + 2,
      '100000000',
      '250000000',
      'UP',
      'down',
      '1',
      1,
      true,
      'BUY',
      'SELL',
      'SOLUSDT',
      '0.01',
      ...known,
    ),
  );

/** A body: nothing, arbitrary JSON, the route's field names with hostile (or valid) values, broken text or bytes. */
const bodyOf = (routeFields: readonly string[], known: readonly string[]) => {
  const fields = routeFields.length > 0 ? routeFields : ['x'];
  return fc.oneof(
    fc.constant(null),
    fc.jsonValue().map((j) => Buffer.from(JSON.stringify(j))),
    fc.dictionary(fc.constantFrom(...fields), hostileValue(known), { maxKeys: fields.length }).map((d) => Buffer.from(JSON.stringify(d))),
    withLoneSurrogate(fields).map((t) => Buffer.from(t)),
    fc.string().map((t) => Buffer.from(t)),
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
    fc.constantFrom(Buffer.from('{'), Buffer.from('{"a":1,}'), Buffer.from('[]'), Buffer.from('"x"'), Buffer.from('x'.repeat(70_000))),
  );
};
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'APPLICATION/JSON',
  'multipart/form-data; boundary=x',
);

export interface RouteShape {
  template: string;
  fields: readonly string[];
}
const requestArb = (routes: readonly RouteShape[], known: readonly string[]) =>
  fc
    .record({
      method: fc.constantFrom(...METHODS),
      route: fc.constantFrom(...routes),
      params: fc.array(fc.oneof(segment, fc.constantFrom(...known, 'x')), { minLength: 3, maxLength: 3 }),
      query,
      body: fc.constant(null),
      type: contentType,
      idempotencyKey: fc.option(
        hostileText.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
        { nil: undefined },
      ),
    })
    .chain((r) => bodyOf(r.route.fields, known).map((body) => ({ ...r, body })));

const pathOf = (template: string, params: string[]) => {
  let i = 0;
  return template.replace(/:[a-z]+/g, () => params[i++] ?? 'x');
};

// --- the check --------------------------------------------------------------------------------

/** Asserts the answer to one fuzzed request; `allow503` says which 503s the route documents. */
function check(method: string, path: string, r: Raw, allow503: (path: string, body: any) => boolean, exchange: boolean): void {
  const where = `${method} ${path} -> ${r.status} ${r.text.slice(0, 200)}`;
  expect(r.status, `dropped connection: ${where}`).not.toBe(0);
  let body: any;
  const type = String(r.headers['content-type'] ?? '');
  if (r.status < 400 && /^(text\/html|text\/javascript|text\/css|image\/svg\+xml)/.test(type)) {
    // the web page and its assets (`/`, `/ui/...`, the Action's icon): not JSON, but only ever answered to GET/HEAD
    expect(['GET', 'HEAD'], `page asset for ${where}`).toContain(method);
    return;
  }
  // the metrics scrape answers the Prometheus text format, not JSON
  const scrape =
    r.status === 200 && /^(\/api)?\/metrics(\?|$)|^\/actuator\/prometheus(\?|$)/.test(path) && String(r.headers['content-type'] ?? '').startsWith('text/plain');
  if (method !== 'HEAD' && r.text.length > 0 && !scrape) {
    try {
      body = JSON.parse(r.text);
    } catch {
      throw new Error(`not JSON: ${where}`);
    }
  }
  if (r.status >= 500) expect(r.status === 503 && allow503(path, body), `server error: ${where}`).toBe(true);
  if (r.status >= 400 && method !== 'HEAD') {
    expect(typeof body?.error, `error body without an error string: ${where}`).toBe('string');
    if (exchange) expect(typeof body?.message, `exchange error without a message: ${where}`).toBe('string');
  }
}

/** Sends `runs` fuzzed requests at `routes`; `known` are valid values (a funded wallet, an account id) mixed into paths and bodies. */
export async function fuzz(
  base: string,
  routes: readonly RouteShape[],
  known: readonly string[],
  runs: number,
  allow503: (path: string, body: any) => boolean,
  exchange: boolean,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(requestArb(routes, known), async (r) => {
      const path = pathOf(r.route.template, r.params) + r.query;
      const headers: Record<string, string> = {};
      if (r.type) headers['content-type'] = r.type;
      if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
      const answer = await send(base, r.method, path, headers, r.body);
      check(r.method, path, answer, allow503, exchange);
    }),
    { numRuns: runs, endOnFailure: true },
  );
}

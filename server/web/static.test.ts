import { rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import uws from 'uWebSockets.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenExclusive } from '../http/listen.ts';
import { sendJson, reply } from '../http/reply.ts';
import { ASSET_PREFIX, servicePage } from './pages.ts';
import { contentTypeOf, loadSite, mountSite } from './static.ts';
import { tempDir } from '../../test/support/temp-dir.ts';

const dir = tempDir('static-');
let base = '';
let socket: uws.us_listen_socket;

beforeAll(async () => {
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(dir, 'app.js'), 'export const x = 1;');
  writeFileSync(join(dir, 'secret.txt'), 'not served');
  const site = loadSite(
    [
      { url: '/', file: join(dir, 'index.html') },
      { url: '/ui/app.js', file: join(dir, 'app.js'), cacheControl: 'public, max-age=60' },
    ],
    { '/ui/config.json': () => ({ mode: 'test' }) },
  );
  const app = uws.App();
  mountSite(app, site, '/ui');
  app.get('/api/x', (res) => sendJson(reply(res), 200, { ok: true }));
  app.any('/*', (res) => sendJson(reply(res), 404, { error: 'fallback' }));
  socket = await listenExclusive(app, '127.0.0.1', 0);
  base = `http://127.0.0.1:${uws.us_socket_local_port(socket)}`;
});

/** GET with the path sent as written (fetch would resolve `..` before sending). */
const rawGet = (path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    get({ host: '127.0.0.1', port: new URL(base).port, path }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });

afterAll(() => {
  uws.us_listen_socket_close(socket);
  rmSync(dir, { recursive: true, force: true });
});

describe('mountSite', () => {
  it('serves / and assets with their content types, ETag and caching', async () => {
    const page = await fetch(base + '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(await page.text()).toContain('<title>t</title>');
    const js = await fetch(base + '/ui/app.js?v=1');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = js.headers.get('etag') as string;
    const again = await fetch(base + '/ui/app.js', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('answers HEAD with the headers only, and JSON documents made per request', async () => {
    const head = await fetch(base + '/ui/app.js', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String('export const x = 1;'.length));
    const config = await fetch(base + '/ui/config.json');
    expect(config.headers.get('cache-control')).toBe('no-store');
    expect(await config.json()).toEqual({ mode: 'test' });
  });

  it('serves nothing but the table: unknown files and traversal are 404 JSON', async () => {
    for (const path of ['/ui/secret.txt', '/ui/../secret.txt', '/ui/%2e%2e/secret.txt', '/ui/', '/ui/app.js/x']) {
      const r = await rawGet(path);
      expect(r.status, path).toBe(404);
      expect(JSON.parse(r.body), path).toMatchObject({ error: 'NOT_FOUND' });
    }
    expect((await fetch(base + '/api/x')).status).toBe(200); // other routes untouched
    expect((await fetch(base + '/elsewhere')).status).toBe(404);
  });

  it('refuses other methods with 405 and Allow, answers preflight', async () => {
    const post = await fetch(base + '/', { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(await post.json()).toMatchObject({ error: 'METHOD_NOT_ALLOWED' });
    expect((await fetch(base + '/ui/app.js', { method: 'OPTIONS' })).status).toBe(204);
  });
});

describe('servicePage', () => {
  it('holds each page, its assets, the shared ones and the chart library', () => {
    for (const service of ['gateway', 'exchange'] as const) {
      const site = servicePage(service);
      for (const url of [
        '/',
        `${ASSET_PREFIX}/app.js`,
        `${ASSET_PREFIX}/shared/dom.js`,
        `${ASSET_PREFIX}/shared/chart.js`,
        `${ASSET_PREFIX}/shared/style.css`,
        `${ASSET_PREFIX}/lightweight-charts.js`,
      ]) {
        expect(site.files.has(url), `${service} ${url}`).toBe(true);
      }
      expect(site.files.get('/')?.contentType).toMatch(/^text\/html/);
      expect(site.files.get(`${ASSET_PREFIX}/lightweight-charts.js`)?.body.toString('utf8', 0, 200)).toContain('Lightweight Charts');
    }
  });

  it('knows the content types a page uses', () => {
    expect(contentTypeOf('a.mjs')).toMatch(/^text\/javascript/);
    expect(contentTypeOf('a.css')).toMatch(/^text\/css/);
    expect(contentTypeOf('a.bin')).toBe('application/octet-stream');
  });
});

/**
 * Serves a service's web page: a fixed table of files read once at boot, answered from memory.
 * Only paths in the table exist, so no request can reach another file (no directory traversal);
 * anything else under the asset prefix is a 404 JSON `{error, message}` like every other error
 * of both services. GET and HEAD are served (with ETag / If-None-Match), OPTIONS is a CORS
 * preflight, other methods 405 with `Allow`.
 *
 * @example
 *   const site = loadSite([{ url: '/', file: 'web/gateway/index.html' }], { '/ui/config.json': () => ({ mode: 'test' }) });
 *   mountSite(app, site, '/ui');
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { CORS_HEADERS, reply, sendJson, sendPreflight, statusLine } from '../http/reply.ts';

/** Content types of the files a page is made of. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** One file of a page: where it is served and where it is read from. */
export interface SiteFile {
  /** URL path, e.g. `/` or `/ui/app.js` */
  url: string;
  /** file to read at boot */
  file: string;
  /** Cache-Control (default `no-cache`: the browser revalidates with the ETag) */
  cacheControl?: string;
  /** content type when the file's extension does not say it (e.g. `/` -> index.html) */
  contentType?: string;
}

interface Entry {
  body: Buffer;
  contentType: string;
  etag: string;
  cacheControl: string;
}

/** A page's files in memory, plus JSON documents made on each request (page configuration). */
export interface Site {
  readonly files: ReadonlyMap<string, Entry>;
  readonly json: ReadonlyMap<string, () => unknown>;
}

/** Content type of a file name by its extension (`application/octet-stream` when unknown). */
export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** Reads every file once; a missing file stops the boot naming it. */
export function loadSite(files: readonly SiteFile[], json: Record<string, () => unknown> = {}): Site {
  const table = new Map<string, Entry>();
  for (const f of files) {
    const body = readFileSync(f.file);
    table.set(f.url, {
      body,
      contentType: f.contentType ?? contentTypeOf(f.file),
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
      cacheControl: f.cacheControl ?? 'no-cache',
    });
  }
  return { files: table, json: new Map(Object.entries(json)) };
}

const ALLOW = 'GET, HEAD, OPTIONS';

/**
 * Mounts `site` on `app`: `/` and every path under `prefix` (e.g. `/ui`). Register it on an app
 * whose API routes do not use `/` or `prefix`: uWS prefers these patterns to a `/*` fallback.
 */
export function mountSite(app: TemplatedApp, site: Site, prefix: string): void {
  const serve = (res: HttpResponse, req: HttpRequest): void => {
    const method = req.getMethod().toUpperCase();
    const r = reply(res, method);
    if (method === 'OPTIONS') return sendPreflight(res);
    const url = req.getUrl();
    if (method !== 'GET' && method !== 'HEAD') {
      return sendJson(r, 405, { error: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on ${url} (allowed: ${ALLOW})` }, [['Allow', ALLOW]]);
    }
    const make = site.json.get(url);
    if (make) return sendJson(r, 200, make(), [['Cache-Control', 'no-store']]);
    const entry = site.files.get(url);
    if (!entry) return sendJson(r, 404, { error: 'NOT_FOUND', message: `no such file ${url}` });
    const fresh = req.getHeader('if-none-match') === entry.etag;
    res.cork(() => {
      res.writeStatus(statusLine(fresh ? 304 : 200));
      for (const [k, v] of CORS_HEADERS) res.writeHeader(k, v);
      res.writeHeader('ETag', entry.etag);
      res.writeHeader('Cache-Control', entry.cacheControl);
      res.writeHeader('X-Content-Type-Options', 'nosniff');
      if (fresh) {
        res.endWithoutBody();
      } else if (r.head) {
        res.writeHeader('Content-Type', entry.contentType);
        res.writeHeader('Content-Length', String(entry.body.length));
        res.endWithoutBody();
      } else {
        res.writeHeader('Content-Type', entry.contentType);
        res.end(entry.body);
      }
    });
    r.aborted = true;
  };
  app.any('/', serve);
  app.any(`${prefix}/*`, serve);
}

/** One raw HTTP request over node:http, for the fault suites: any method token, raw bytes, and a status 0 when the connection dropped. */
import { request as httpRequest } from 'node:http';

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends one request; `chunked` sends the body without a Content-Length. */
export function send(base: string, method: string, path: string, headers: Record<string, string>, body: Buffer | null, chunked = false): Promise<Raw> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body && !chunked ? { 'content-length': String(body.length) } : {}) },
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: 0, headers: {}, text: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, headers: {}, text: '' }));
    if (body) req.write(body);
    req.end();
  });
}

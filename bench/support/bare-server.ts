/**
 * The baseline of the HTTP benchmarks: a bare uWS server (its own process, like the services)
 * answering `GET /bare` with a small JSON object built per request, the least any JSON route
 * of ours can cost. Run: `node --import tsx bench/support/bare-server.ts <port> [bodyBytes]`;
 * with `bodyBytes` every body is exactly that many bytes (fixed-width fields and a padding field,
 * or a smaller object, or a bare JSON string for the smallest sizes), to compare with a route of
 * that body length.
 */
import uWS from 'uWebSockets.js';

const port = Number(process.argv[2] ?? 0);
const bodyBytes = process.argv[3] === undefined ? undefined : Number(process.argv[3]);

/** The body of the `n`th request; exactly `bytes` long when given. */
function makeBody(bytes: number | undefined): (n: number) => string {
  const price = (n: number) => ({ symbol: 'solusdt', price: '150.12345678', ts: 1763700000000 + n, counter: String(n), paused: 0 });
  if (bytes === undefined) return (n) => JSON.stringify(price(n));
  // fixed width: the ts stays 13 digits and the counter 12, so one padding length fits every request
  const fixed = (n: number) => String(n % 1e12).padStart(12, '0');
  const full = (n: number, pad: string) => ({ ...price(n % 1e12), counter: fixed(n), pad });
  const small = (n: number, pad: string) => ({ n: fixed(n), pad });
  for (const shape of [full, small]) {
    const room = bytes - JSON.stringify(shape(0, '')).length;
    if (room >= 0) {
      const pad = 'x'.repeat(room);
      return (n) => JSON.stringify(shape(n, pad));
    }
  }
  const text = JSON.stringify('x'.repeat(Math.max(0, bytes - 2)));
  return () => text;
}

const body = makeBody(bodyBytes);
let n = 0;
uWS
  .App()
  .get('/bare', (res) => {
    const text = body(++n);
    res.cork(() => {
      res.writeHeader('Content-Type', 'application/json').writeHeader('Access-Control-Allow-Origin', '*').end(text);
    });
  })
  .listen('127.0.0.1', port, (token) => {
    if (!token) {
      console.error(`bare server: port ${port} is in use`);
      process.exit(1);
    }
  });

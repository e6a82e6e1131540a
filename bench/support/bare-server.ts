/**
 * The baseline of the HTTP benchmarks: a bare uWS server (its own process, like the services)
 * answering `GET /bare` with a small JSON object built per request, the least any JSON route
 * of ours can cost. Run: `node --import tsx bench/support/bare-server.ts <port> [bodyBytes]`;
 * with `bodyBytes` the object gets a padding field so that its JSON is about that long (to
 * compare with a route of a larger payload).
 */
import uWS from 'uWebSockets.js';

const port = Number(process.argv[2] ?? 0);
const bodyBytes = Number(process.argv[3] ?? 0);
const base = JSON.stringify({ symbol: 'solusdt', price: '150.12345678', ts: 1763700000000, counter: '0', paused: 0 }).length;
const pad = bodyBytes > base + 10 ? 'x'.repeat(bodyBytes - base - 10) : '';
let n = 0;
uWS
  .App()
  .get('/bare', (res) => {
    n++;
    const body = JSON.stringify(
      pad
        ? { symbol: 'solusdt', price: '150.12345678', ts: 1763700000000 + n, counter: String(n), paused: 0, pad }
        : { symbol: 'solusdt', price: '150.12345678', ts: 1763700000000 + n, counter: String(n), paused: 0 },
    );
    res.cork(() => {
      res.writeHeader('Content-Type', 'application/json').writeHeader('Access-Control-Allow-Origin', '*').end(body);
    });
  })
  .listen('127.0.0.1', port, (token) => {
    if (!token) {
      console.error(`bare server: port ${port} is in use`);
      process.exit(1);
    }
  });

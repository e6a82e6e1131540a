/**
 * The baseline of the HTTP benchmarks: a bare uWS server (its own process, like the services)
 * answering `GET /bare` with a small JSON object built per request, the least any JSON route
 * of ours can cost. Run: `node --import tsx bench/support/bare-server.ts <port>`.
 */
import uWS from 'uWebSockets.js';

const port = Number(process.argv[2] ?? 0);
let n = 0;
uWS
  .App()
  .get('/bare', (res) => {
    n++;
    const body = JSON.stringify({ symbol: 'solusdt', price: '150.12345678', ts: 1763700000000 + n, counter: String(n), paused: 0 });
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

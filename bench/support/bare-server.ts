/**
 * The baseline of the HTTP benchmarks: a bare uWS server (its own process, like the services)
 * answering `GET /bare` with JSON, the least any JSON route of ours can cost. Run:
 * `node --import tsx bench/support/bare-server.ts <port> [bodyBytes]`. Without `bodyBytes` it
 * builds a small price object per request; with `bodyBytes` it sends one fixed JSON body of
 * exactly that many bytes (a price object with a padding field, or a smaller object, or a JSON
 * string for the smallest sizes), built once: the HTTP cost alone, to compare with a route of
 * that body length.
 */
import uWS from 'uWebSockets.js';

const port = Number(process.argv[2] ?? 0);
const bodyBytes = process.argv[3] === undefined ? undefined : Number(process.argv[3]);

/** The body of the `n`th request. */
function makeBody(bytes: number | undefined): (n: number) => string {
  const price = (n: number) => ({ symbol: 'solusdt', price: '150.12345678', ts: 1763700000000 + n, counter: String(n), paused: 0 });
  if (bytes === undefined) return (n) => JSON.stringify(price(n));
  const shapes = [(pad: string) => ({ ...price(0), pad }), (pad: string) => ({ n: 0, pad })];
  let fixed = JSON.stringify('x'.repeat(Math.max(0, bytes - 2)));
  for (const shape of shapes) {
    const room = bytes - JSON.stringify(shape('')).length;
    if (room >= 0) {
      fixed = JSON.stringify(shape('x'.repeat(room)));
      break;
    }
  }
  return () => fixed;
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

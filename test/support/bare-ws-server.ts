/**
 * The baseline of the fan-out benchmarks: bare uWS fed by the same NATS subject as the gateway
 * (`market.price.solusdt`), the least a broadcast of ticks can cost. Every tick becomes an event
 * of the gateway's shape with a seq (`{"type":"price",...,"seq":n}`) published to one topic; a
 * socket joins the topic on open; a connect with `?since=` first gets a resume message (nothing
 * is replayed: a bare server keeps no log). Same socket options as the gateway's stream (1 MiB
 * backpressure bound, 120 s idle timeout with automatic pings, no compression). Run:
 * `node --import tsx test/support/bare-ws-server.ts <port> <natsUrl> [backlogSockets]`
 * (`backlogSockets` listening sockets on the port, as the gateway's backlog; default 8).
 */
import { connect } from '@nats-io/transport-node';
import uWS from 'uWebSockets.js';

const port = Number(process.argv[2]);
const natsUrl = process.argv[3] ?? 'nats://127.0.0.1:4222';
const listeners = Number(process.argv[4] ?? 8);
const TOPIC = 'events';

let seq = 0;
const app = uWS.App();
app.ws<{ since: string }>('/api/ws', {
  maxPayloadLength: 4 * 1024,
  maxBackpressure: 1024 * 1024,
  closeOnBackpressureLimit: 1,
  idleTimeout: 120,
  sendPingsAutomatically: true,
  upgrade: (res, req, context) => {
    const since = req.getQuery('since') ?? '';
    res.upgrade({ since }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
  },
  open: (ws) => {
    if (ws.getUserData().since !== '') ws.send(JSON.stringify({ type: 'resume', recovered: true, epoch: 'bare', seq }));
    ws.subscribe(TOPIC);
  },
});
app.get('/api/state', (res) => void res.end('{}'));
for (let i = 0; i < listeners; i++) {
  app.listen('127.0.0.1', port, (token) => {
    if (!token) {
      console.error(`bare ws server: port ${port} is in use`);
      process.exit(1);
    }
  });
}

const nc = await connect({ servers: natsUrl, name: 'bare-ws-baseline', maxReconnectAttempts: -1 });
const sub = nc.subscribe('market.price.solusdt');
for await (const m of sub) {
  let tick: { price: string | number; ts: number };
  try {
    tick = m.json();
  } catch {
    continue;
  }
  const price = typeof tick.price === 'number' ? tick.price.toFixed(8) : tick.price;
  app.publish(TOPIC, JSON.stringify({ type: 'price', symbol: 'solusdt', price, ts: tick.ts, seq: ++seq }));
}

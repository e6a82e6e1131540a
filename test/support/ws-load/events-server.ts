/**
 * A bare uWS event stream for the load fleet's test and scale checks, in its own process (so it
 * can be killed and started again, and its CPU read apart): `GET /api/ws` upgraded, every socket on
 * the topic `events`, prices published with `app.publish` every `everyMs` once told to, and a resume
 * message first for a connect with `since`: `recovered` unless an `epoch` other than its own is
 * passed, its `seq` the `since` echoed when recovered, else the server's last seq. Nothing is replayed. It obeys `EventsServerCommand`s over IPC, answering each.
 * Run: `node --import tsx test/support/ws-load/events-server.ts <port> <epoch> <lastSeq>`.
 */
import uWS from 'uWebSockets.js';
import type { EventsServerAnswer, EventsServerCommand, EventsServerState } from './events-server-handle.ts';

type SocketData = { since: number | null; epoch: string | null };

const port = Number(process.argv[2]);
const epoch = process.argv[3] ?? 'e1';
let seq = Number(process.argv[4] ?? 0);
const sockets = new Set<uWS.WebSocket<SocketData>>();
let timer: NodeJS.Timeout | null = null;
let lastEvent = '';
let connects = 0;
let resumes = 0;

const app = uWS.App().ws<SocketData>('/api/ws', {
  idleTimeout: 60,
  sendPingsAutomatically: true,
  maxBackpressure: 1024 * 1024,
  upgrade: (res, req, context) => {
    const sinceText = req.getQuery('since');
    const epochText = req.getQuery('epoch');
    const data: SocketData = { since: sinceText ? Number(sinceText) : null, epoch: epochText ? epochText : null };
    const key = req.getHeader('sec-websocket-key');
    const protocol = req.getHeader('sec-websocket-protocol');
    const extensions = req.getHeader('sec-websocket-extensions');
    res.upgrade(data, key, protocol, extensions, context);
  },
  open: (ws) => {
    connects++;
    sockets.add(ws);
    const data = ws.getUserData();
    if (data.since !== null) {
      resumes++;
      const recovered = data.epoch === null || data.epoch === epoch;
      // the since it got echoed when recovered (a test reads what the client sent), else where its log is
      ws.send(JSON.stringify({ type: 'resume', recovered, epoch, seq: recovered ? data.since : seq }));
    }
    ws.subscribe('events');
  },
  close: (ws) => {
    sockets.delete(ws);
  },
});

/** Publishes the next price to every socket. */
function publish(): void {
  lastEvent = JSON.stringify({ type: 'price', symbol: 'solusdt', price: '1.0', ts: Date.now(), seq: ++seq });
  app.publish('events', lastEvent);
}

/** The first `count` sockets, in the order they opened. */
function some(count: number): Array<uWS.WebSocket<SocketData>> {
  return [...sockets].slice(0, count);
}

function run(cmd: EventsServerCommand): EventsServerState {
  switch (cmd.cmd) {
    case 'publish':
      if (timer) clearInterval(timer);
      timer = cmd.everyMs > 0 ? setInterval(publish, cmd.everyMs) : null;
      break;
    case 'close':
      for (const ws of some(cmd.count)) ws.end(cmd.code, cmd.reason);
      break;
    case 'duplicate':
      // the last event again, to one socket only
      for (const ws of some(1)) ws.send(lastEvent);
      break;
    case 'gap':
      // one socket misses one event, and gets the next one, which shows the gap
      for (const ws of some(1)) {
        ws.unsubscribe('events');
        publish();
        ws.subscribe('events');
        publish();
      }
      break;
    case 'state':
      break;
  }
  return { seq, sockets: sockets.size, connects, resumes, publishing: timer !== null };
}

app.listen('127.0.0.1', port, (token) => {
  if (!token) {
    console.error(`events server: port ${port} is in use`);
    process.exit(1);
  }
  process.send?.({ listening: true });
});

process.on('message', (message: EventsServerCommand & { id: number }) => {
  const answer: EventsServerAnswer = { id: message.id, state: run(message) };
  process.send?.(answer);
});
// the test or bench that started it is gone
process.on('disconnect', () => process.exit(0));

/**
 * A client of the event stream that resumes exactly as docs/gateway-api.md#resume tells a client
 * to, and moves between gateways as a load balancer would send it: it closes its socket every few
 * hundred milliseconds and connects to the next URL with `?since=<last seq received>&epoch=<epoch
 * of the last resume message>`. A socket closed with 1013 is followed after its `retry-after-ms`,
 * from the `since=` its reason names when it names one. It keeps, per connection, what it was told
 * and what it received, so a test can say whether any connection, or the client as a whole, got a
 * seq twice or missed one without being told `recovered:false`.
 *
 * @example
 *   const client = hoppingSocket([a.ws, b.ws], 500);
 *   ...
 *   await client.stop();
 *   client.faults(); // []
 */
import WebSocket from 'ws';
import { setTimeout as sleep } from 'node:timers/promises';

/** One connection of the client. */
export interface Connection {
  url: string;
  /** the `since` it connected with (undefined for the first connection) */
  since: number | undefined;
  /** the resume message, when one came */
  resume?: { recovered: boolean; epoch: string; seq: number };
  /** seqs of the events received, in order (the connect snapshot left out) */
  seqs: number[];
  /** close code and reason */
  closed?: { code: number; reason: string };
}

/** The hopping client. */
export interface HoppingSocket {
  connections: Connection[];
  /** the last seq received (0 before any) */
  lastSeq(): number;
  /** Each repeat (a seq received again, by a connection or by the client) and each gap not announced with `recovered:false`, as text; empty when none. */
  faults(): string[];
  stop(): Promise<void>;
}

/** Connects to `urls` in turn, each connection held `holdMs` (jittered 0.5-1.5x) unless the server closes it first. */
export function hoppingSocket(urls: readonly string[], holdMs: number): HoppingSocket {
  const connections: Connection[] = [];
  /** every event received by the client, in order, with the connection it came on */
  const received: Array<{ seq: number; conn: number }> = [];
  let last = 0;
  let epoch: string | undefined;
  let stopped = false;
  let socket: WebSocket | null = null;

  const once = (url: string, since: number | undefined): Promise<Connection> =>
    new Promise((resolve) => {
      const query = since === undefined ? '' : `?since=${since}${epoch ? `&epoch=${encodeURIComponent(epoch)}` : ''}`;
      const conn: Connection = { url, since, seqs: [] };
      const index = connections.push(conn) - 1;
      const ws = new WebSocket(url + query);
      socket = ws;
      let snapshotPossible = true;
      let hold: NodeJS.Timeout | null = null;
      ws.on('open', () => {
        hold = setTimeout(() => ws.close(1000), holdMs * (0.5 + Math.random()));
      });
      ws.on('message', (data) => {
        const m = JSON.parse(String(data)) as { type: string; seq: number; recovered?: boolean; epoch?: string };
        if (m.type === 'resume') {
          conn.resume = { recovered: m.recovered === true, epoch: String(m.epoch), seq: m.seq };
          epoch = String(m.epoch);
          return;
        }
        // the current price sent on connect, at or before the resume point (docs/gateway-api.md#events)
        const snapshot = snapshotPossible && m.type === 'price' && (since === undefined || m.seq <= since);
        snapshotPossible = false;
        if (snapshot) return;
        conn.seqs.push(m.seq);
        received.push({ seq: m.seq, conn: index });
        last = Math.max(last, m.seq);
      });
      ws.on('close', (code, reason) => {
        if (hold) clearTimeout(hold);
        conn.closed = { code, reason: reason.toString() };
        resolve(conn);
      });
      ws.on('error', () => undefined); // a refused connect ends in 'close' too
    });

  const running = (async () => {
    let turn = 0;
    let since: number | undefined;
    while (!stopped) {
      const conn = await once(urls[turn++ % urls.length] as string, since);
      since = last === 0 ? undefined : last;
      const reason = conn.closed?.reason ?? '';
      const hinted = /since=(\d+)/.exec(reason);
      if (conn.closed?.code === 1013) {
        // as documented: come back after the hint, from the seq the reason names
        if (hinted) since = Number(hinted[1]);
        else if (conn.since !== undefined) since = conn.since;
        await sleep(Number(/retry-after-ms=(\d+)/.exec(reason)?.[1] ?? 500));
      } else if (conn.seqs.length === 0 && !conn.resume) await sleep(200); // refused or cut at once: the gateway is away
    }
  })();

  return {
    connections,
    lastSeq: () => last,
    faults() {
      const out: string[] = [];
      for (const [i, c] of connections.entries()) {
        const seen = new Set<number>();
        for (const s of c.seqs) {
          if (seen.has(s)) out.push(`connection ${i} (${c.url}) received seq ${s} twice`);
          seen.add(s);
        }
      }
      for (let i = 1; i < received.length; i++) {
        const a = received[i - 1] as { seq: number; conn: number };
        const b = received[i] as { seq: number; conn: number };
        if (b.seq <= a.seq) out.push(`seq ${b.seq} received again (after ${a.seq}) on connection ${b.conn} (since ${connections[b.conn]?.since})`);
        else if (b.seq !== a.seq + 1 && !(b.conn !== a.conn && connections[b.conn]?.resume?.recovered === false))
          out.push(`gap ${a.seq} -> ${b.seq} on connection ${b.conn} not announced`);
      }
      return out;
    },
    async stop() {
      stopped = true;
      (socket as WebSocket | null)?.close();
      await running;
    },
  };
}

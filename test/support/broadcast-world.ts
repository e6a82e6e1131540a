/**
 * What the broadcast benchmarks and the herd test run against: a private NATS with JetStream, a
 * ticker publishing SOL ticks on `market.price.solusdt` at a fixed rate (each stamped with the
 * time it is sent, so a client's latency is its receive time minus `ts`), and either the gateway
 * (`npm run gateway` on that NATS: its JetStream event stream, the embedded chain or a chain
 * process, file stores in its DATA_DIR) or the bare uWS baseline fed by the same subject
 * (`bare-ws-server.ts`), each its own process that can be SIGKILLed and started again on the same
 * port and data.
 *
 * @example
 *   const nats = await managedNats();
 *   const ticker = await startTicker(nats.url, 10);
 *   const gw = broadcastGateway({ natsUrl: nats.url, dataDir });
 *   await gw.start();
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Managed } from './managed.ts';
import { freePort } from './servers.ts';

/** A ticker on NATS. */
export interface Ticker {
  /** ticks published so far */
  readonly sent: number;
  stop(): Promise<void>;
}

/** Publishes a random walk on `market.price.solusdt`, `perSecond` ticks a second, each `ts` the time it is sent. */
export async function startTicker(natsUrl: string, perSecond: number): Promise<Ticker> {
  const nc = await connect({ servers: natsUrl.split(','), name: 'bench-ticker', maxReconnectAttempts: -1, reconnectTimeWait: 200 });
  let price = 150;
  let sent = 0;
  const started = performance.now();
  // paced against the clock, not by a fixed interval, so a busy loop does not lower the rate
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    while (sent < due) {
      price *= Math.exp(0.0004 * (Math.random() - 0.5));
      if (!nc.isClosed()) nc.publish('market.price.solusdt', JSON.stringify({ symbol: 'solusdt', price: price.toFixed(8), ts: Date.now() }));
      sent++;
    }
  }, 5);
  return {
    get sent() {
      return sent;
    },
    async stop() {
      clearInterval(timer);
      await nc.drain().catch(() => undefined);
    },
  };
}

/** Where a broadcast gateway runs. */
export interface BroadcastGatewaySpec {
  natsUrl: string;
  dataDir: string;
  /** a chain process's JSON-RPC URL; absent: the embedded chain in the gateway's process */
  chainUrl?: string;
  port?: number;
  env?: Record<string, string>;
  nodeArgs?: string[];
}

/** A gateway process on NATS (not started), Profile A, test mode, logging at info to its output. */
export async function broadcastGateway(g: BroadcastGatewaySpec): Promise<Managed & { url: string; base: string }> {
  const port = g.port ?? (await freePort());
  const env = {
    ...process.env,
    DATA_DIR: g.dataDir,
    GATEWAY_PORT: String(port),
    NATS_URL: g.natsUrl,
    LOG_LEVEL: 'info',
    ...(g.chainUrl ? { SOLANA_RPC_URL: g.chainUrl } : {}),
    ...g.env,
  };
  const m = new Managed(
    `gateway :${port}`,
    port,
    // BENCH_GATEWAY_ROOT runs the gateway of another checkout (a before/after comparison in one run)
    () =>
      spawn(process.execPath, [...(g.nodeArgs ?? []), '--import', 'tsx', 'bin/gateway.ts'], {
        env,
        cwd: process.env.BENCH_GATEWAY_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    undefined,
    120_000,
  );
  return Object.assign(m, { url: `ws://127.0.0.1:${port}/api/ws`, base: `http://127.0.0.1:${port}` });
}

/** The bare uWS baseline on NATS (not started). */
export async function bareBroadcaster(natsUrl: string, port?: number): Promise<Managed & { url: string; base: string }> {
  const p = port ?? (await freePort());
  const m = new Managed(`bare ws :${p}`, p, () =>
    spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'bare-ws-server.ts'), String(p), natsUrl], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  return Object.assign(m, { url: `ws://127.0.0.1:${p}/api/ws`, base: `http://127.0.0.1:${p}` });
}

/** Resident memory of a process now, bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

/** Times the kernel dropped a connection because a listen queue was full, since boot (TcpExt ListenOverflows). */
export function listenOverflows(): number {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
  const header = lines.find((l) => l.startsWith('TcpExt:'))?.split(/\s+/) ?? [];
  const values = lines.filter((l) => l.startsWith('TcpExt:'))[1]?.split(/\s+/) ?? [];
  const at = header.indexOf('ListenOverflows');
  return at < 0 ? Number.NaN : Number(values[at]);
}

/** Consumers on a JetStream stream now, from the NATS monitoring-free API (a request on `$JS.API.STREAM.INFO`). */
export async function streamConsumers(natsUrl: string, stream: string): Promise<number> {
  const nc = await connect({ servers: natsUrl.split(','), name: 'bench-stream-info' });
  try {
    const m = await nc.request(`$JS.API.STREAM.INFO.${stream}`, undefined, { timeout: 5_000 });
    const info = m.json<{ state?: { consumer_count?: number } }>();
    return info.state?.consumer_count ?? Number.NaN;
  } finally {
    await nc.close();
  }
}

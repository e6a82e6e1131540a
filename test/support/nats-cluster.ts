/**
 * A three-server NATS cluster with JetStream on free loopback ports (docs/operations.md#nats-cluster):
 * each server has its own name, client port, route port and store dir, and can be SIGKILLed,
 * paused and started again on the same ports and the same store. `url` lists every server,
 * comma-separated, as `NATS_URL` does.
 *
 * Each server is written a config file. On a nats-server that knows it (2.10 and later), the
 * file asks for `jetstream { sync_interval: always }`: every write is fsynced before it is
 * acknowledged, so a crash of the whole cluster at once loses no acknowledged write (with the
 * default, a write acknowledged by a majority sits in the page cache of each for up to two
 * minutes).
 *
 * @example
 *   const cluster = await startNatsCluster();
 *   await cluster.jetStreamReady();
 *   await cluster.nodes[0]!.kill();
 *   await cluster.nodes[0]!.start();
 *   await cluster.stop();
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Managed } from './managed.ts';
import { freePort } from './servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './temp-dir.ts';

/** One server of the cluster. */
export interface ClusterServer extends Managed {
  /** `n1`, `n2`, `n3` */
  serverName: string;
  /** `nats://127.0.0.1:<port>` */
  url: string;
  clusterPort: number;
}

/** The running cluster. */
export interface NatsCluster {
  servers: ClusterServer[];
  /** every server's URL, comma-separated (a NATS_URL) */
  url: string;
  /** whether the servers fsync every write (`sync_interval: always`; needs nats-server 2.10+) */
  syncAlways: boolean;
  /** Resolves once JetStream answers through some running server (a meta leader is elected); `streams` must answer too (their leaders elected). */
  jetStreamReady(timeoutMs?: number, streams?: string[]): Promise<void>;
  /** The running server that `nc` is connected to. */
  serverOf(nc: NatsConnection): ClusterServer | undefined;
  stop(): Promise<void>;
}

/** Whether the installed nats-server knows `sync_interval` (2.10 and later). */
function serverSyncs(): boolean {
  const out = execFileSync('nats-server', ['--version'], { encoding: 'utf8' });
  const m = /v(\d+)\.(\d+)/.exec(out);
  return m !== null && (Number(m[1]) > 2 || (Number(m[1]) === 2 && Number(m[2]) >= 10));
}

/** Starts `size` servers (3) routed to each other, with JetStream; resolves once every port accepts. */
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const root = tempDir('nats-cluster-');
  const syncAlways = serverSyncs();
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), cluster: await freePort() })));
  const servers: ClusterServer[] = ports.map((p, i) => {
    const serverName = `n${i + 1}`;
    const dir = join(root, serverName);
    mkdirSync(dir, { recursive: true });
    const routes = ports.filter((_, j) => j !== i).map((o) => `nats://127.0.0.1:${o.cluster}`);
    const config = join(root, `${serverName}.conf`);
    writeFileSync(
      config,
      [
        `server_name: ${serverName}`,
        `listen: 127.0.0.1:${p.client}`,
        `jetstream { store_dir: ${JSON.stringify(dir)}${syncAlways ? ', sync_interval: always' : ''} }`,
        `cluster { name: test-cluster, listen: 127.0.0.1:${p.cluster}, routes: [${routes.join(', ')}] }`,
        '',
      ].join('\n'),
    );
    const m = new Managed(`nats-server ${serverName}`, p.client, () => spawn('nats-server', ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] }));
    return Object.assign(m, { serverName, url: `nats://127.0.0.1:${p.client}`, clusterPort: p.cluster });
  });
  await Promise.all(servers.map((s) => s.start()));
  const url = servers.map((s) => s.url).join(',');

  return {
    servers,
    url,
    syncAlways,
    async jetStreamReady(timeoutMs = 30_000, streams: string[] = []) {
      const deadline = Date.now() + timeoutMs;
      let last: unknown = null;
      while (Date.now() < deadline) {
        const running = servers.filter((s) => s.running);
        let nc: NatsConnection | null = null;
        try {
          nc = await connect({ servers: running.map((s) => s.url), timeout: 1_000, reconnect: false });
          const jsm = await jetstreamManager(nc, { timeout: 1_000 });
          await jsm.getAccountInfo();
          for (const s of streams) await jsm.streams.info(s);
          return;
        } catch (err) {
          last = err;
        } finally {
          await nc?.close().catch(() => undefined);
        }
        await sleep(200);
      }
      throw new Error(`JetStream did not answer within ${timeoutMs} ms: ${last instanceof Error ? last.message : String(last)}`);
    },
    serverOf(nc) {
      const info = nc.info;
      return servers.find((s) => s.serverName === info?.server_name);
    },
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

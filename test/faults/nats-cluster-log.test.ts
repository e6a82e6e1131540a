/**
 * The JetStream event log on a three-server cluster with three replicas
 * (docs/operations.md#nats-cluster): while events are appended (each retried with its dedup id until
 * acknowledged) and followed, the server the connection is on is SIGKILLed, started again, then
 * another one: the client moves to a live server, the follower's ordered consumer is recreated,
 * and every event is in the stream once and reaches the follower once, in order, without a gap.
 * An existing stream with one replica is raised to three.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { connectNats } from '../../adapters/feed/nats-connection.ts';
import { openJetStreamEventLog, type JetStreamEventLog } from '../../adapters/store/event-log/jetstream.ts';
import type { LoggedEvent, Sequenced } from '../../adapters/store/event-log/port.ts';
import { startNatsCluster, type NatsCluster } from '../support/nats-cluster.ts';
import { eventually } from '../support/eventually.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const log = pino({ level: 'silent' });
type E = LoggedEvent & { n: number };

describe('the event log on a three-server cluster', () => {
  let cluster: NatsCluster | undefined;
  const connections: NatsConnection[] = [];
  afterAll(async () => {
    for (const nc of connections) await nc.close().catch(() => undefined);
    await cluster?.stop();
  });

  it('loses, repeats and reorders nothing while the server each client is on is killed, one at a time', async () => {
    cluster = await startNatsCluster();
    await cluster.jetStreamReady();
    const c = cluster;
    // made with one replica first (an older deployment), then opened with three: raised
    const first = await connectNats(c.url, 'writer-r1', log);
    connections.push(first);
    await openJetStreamEventLog<E>(first, { stream: 'T_EVENTS', subjectPrefix: 't.events', log });
    const nc = await connectNats(c.url, 'writer', log);
    const ncFollow = await connectNats(c.url, 'follower', log);
    connections.push(nc, ncFollow);
    const writer: JetStreamEventLog<E> = await openJetStreamEventLog<E>(nc, { stream: 'T_EVENTS', subjectPrefix: 't.events', replicas: 3, log });
    const reader = await openJetStreamEventLog<E>(ncFollow, { stream: 'T_EVENTS', subjectPrefix: 't.events', replicas: 3, log });
    const admin = await connect({ servers: c.url.split(','), maxReconnectAttempts: -1 });
    connections.push(admin);
    const { jetstreamManager } = await import('@nats-io/jetstream');
    expect((await (await jetstreamManager(admin)).streams.info('T_EVENTS')).config.num_replicas).toBe(3);

    const seen: Array<Sequenced<E>> = [];
    const following = await reader.follow(1, (e) => seen.push(e));
    let n = 0;
    let running = true;
    const appending = (async () => {
      while (running) {
        const event = { type: 'tick', n: ++n } as E;
        // retried with the same dedup id until acknowledged: in the stream once
        for (;;) {
          try {
            await writer.append(event, { dedupId: `tick:${event.n}` });
            break;
          } catch {
            await sleep(100);
          }
        }
        await sleep(10);
      }
    })();

    for (const victim of [c.serverOf(nc), c.servers.find((s) => s !== c.serverOf(nc) && s !== c.serverOf(ncFollow))]) {
      await sleep(1_500);
      expect(victim).toBeDefined();
      const before = n;
      await victim!.kill();
      await eventually('appends going on with a server down', async () => (n > before + 20 ? true : null), 30_000, 100);
      await victim!.start();
      await c.jetStreamReady(30_000, ['T_EVENTS']);
    }
    await sleep(1_000);
    running = false;
    await appending;
    await eventually('the follower caught up', async () => (seen.length >= n ? true : null), 30_000, 100);
    await following.stop();

    const ns = seen.map((e) => e.n);
    expect(new Set(ns).size, 'each event once').toBe(ns.length);
    expect(ns).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    const seqs = seen.map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
    expect(await writer.lastSeq()).toBe(n);
  }, 180_000);
});

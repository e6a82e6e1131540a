/**
 * Two gateways on a three-server NATS cluster, the event stream and its buckets with three
 * replicas (docs/operations.md#nats-cluster), with bets flowing from a loop and a resuming
 * WebSocket client on each gateway:
 *
 * 1. the server the leader's event-stream connection is on is SIGKILLed, started again, then
 *    another one: every event is in the stream once (no bet id twice per type), each client saw the
 *    sequence without a gap or a repeat, and every bet placed closes;
 * 2. two of the three servers are SIGKILLed (no quorum: publishes fail): the bets placed meanwhile
 *    wait in the outbox and reach the stream, each once, when one server comes back.
 */
import { afterAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { openJetStreamEventLog } from '../../adapters/store/event-log/jetstream.ts';
import type { LoggedEvent, Sequenced } from '../../adapters/store/event-log/port.ts';
import type { BettingLoop } from '../support/betting-loop.ts';
import { sleep } from '../support/client-request.ts';
import { eventually } from '../support/eventually.ts';
import { GatewayCluster, serverOfGateway } from '../support/gateway-cluster.ts';
import { logLines } from '../support/gateway-log.ts';
import { startNatsCluster, type NatsCluster } from '../support/nats-cluster.ts';
import { gapsAndRepeats, resumingSocket, type ResumingSocket } from '../support/resuming-socket.ts';

type Event = Sequenced<LoggedEvent & { id?: string }>;

/** Every event of the stream, read through any running server. */
async function streamEvents(nc: NatsConnection): Promise<Event[]> {
  const log = await openJetStreamEventLog<LoggedEvent & { id?: string }>(nc, { log: pino({ level: 'silent' }) });
  const out: Event[] = [];
  for (;;) {
    const page = await log.readSince(out.at(-1)?.seq ?? 0, 1_000);
    if (page.length === 0) return out;
    out.push(...page);
  }
}

/** `type:id` of every bet event seen more than once. */
function repeatedBetEvents(events: Event[]): string[] {
  const counts = new Map<string, number>();
  for (const e of events) if (e.type !== 'price') counts.set(`${e.type}:${e.id}`, (counts.get(`${e.type}:${e.id}`) ?? 0) + 1);
  return [...counts].filter(([, n]) => n > 1).map(([k, n]) => `${k} x${n}`);
}

const idsOf = (events: Event[], type: string) => new Set(events.filter((e) => e.type === type).map((e) => String(e.id)));

describe('gateways on a three-server NATS cluster', () => {
  let nats: NatsCluster | undefined;
  let cluster: GatewayCluster | undefined;
  let bettors: BettingLoop | undefined;
  let admin: NatsConnection | undefined;
  const clients: ResumingSocket[] = [];
  afterAll(async () => {
    for (const c of clients) c.stop();
    await bettors?.stop();
    await admin?.close().catch(() => undefined);
    await cluster?.stop();
  });

  /** Waits until each client saw `last`; a failure names what each gateway logged about its stream follower and the client's own state. */
  async function clientsCaughtUp(c: GatewayCluster, last: number): Promise<void> {
    for (const [i, client] of clients.entries()) {
      await eventually('the client caught up', async () => (client.lastSeq() >= last ? true : null), 30_000, 200).catch((err: unknown) => {
        const node = c.nodes[i]!;
        const warnings = logLines(node.process.output())
          .filter((l) => Number(l.level) >= 40 || /NATS|follower/.test(l.msg))
          .slice(-25)
          .map(
            (l) =>
              `${new Date(l.time).toISOString()} ${l.msg} ${JSON.stringify({ ...l, time: undefined, msg: undefined, level: undefined, pid: undefined, hostname: undefined })}`,
          );
        throw new Error(
          `${String(err)}: ${node.id}'s client is at seq ${client.lastSeq()} of ${last} after ${client.resumes} resume(s); its log:\n${warnings.join('\n')}`,
        );
      });
    }
  }

  it('keeps every event once, every socket without a gap, and settlement going while one server at a time is killed', async () => {
    nats = await startNatsCluster();
    await nats.jetStreamReady();
    const n = nats;
    cluster = await GatewayCluster.start(2, { GW_EVENT_REPLICAS: '3' }, n);
    const c = cluster;
    admin = await connect({ servers: n.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    await c.leader();
    const wallets = await c.walletsOnEveryNode(2);
    clients.push(...c.nodes.map((node) => resumingSocket(() => node.ws)));
    bettors = c.bettingLoop(wallets, new Set());
    bettors.start();
    await sleep(5_000);

    const first = serverOfGateway(await c.leader(), n);
    expect(first, 'the server the leader is on').toBeDefined();
    const second = n.servers.find((s) => s !== first)!;
    for (const victim of [first!, second]) {
      const placedBefore = bettors.placed.size;
      await victim.kill();
      await sleep(8_000);
      await victim.start();
      await n.jetStreamReady(30_000, ['GW_EVENTS', 'KV_GW_EVENTS_LEADER']);
      await eventually('bets placed again', async () => (bettors!.placed.size > placedBefore + 2 ? true : null), 30_000, 200);
    }
    await sleep(3_000);
    await bettors.stop();

    // every bet placed is announced and closed, once
    const placed = [...bettors.placed];
    expect(placed.length, 'bets placed').toBeGreaterThan(wallets.length * 2);
    const events = await eventually(
      'every placed bet closed in the stream',
      async () => {
        const all = await streamEvents(admin!);
        const closed = idsOf(all, 'bet_closed');
        return placed.every((id) => closed.has(id)) ? all : null;
      },
      60_000,
      1_000,
    );
    expect(repeatedBetEvents(events), 'bet events in the stream more than once').toEqual([]);
    const opened = idsOf(events, 'bet_open');
    expect(
      placed.filter((id) => !opened.has(id)),
      'placed bets never announced',
    ).toEqual([]);

    // each client saw every event from its start on, in order, once
    await clientsCaughtUp(c, events.at(-1)!.seq);
    for (const [i, client] of clients.entries()) {
      expect(gapsAndRepeats(client.events), `client of ${c.nodes[i]!.id}`).toEqual([]);
      expect(client.events.length).toBeGreaterThan(50);
    }
  }, 300_000);

  it('holds the bets of an outage without quorum in the outbox and relays them, once, when a server returns', async () => {
    const n = nats!;
    const c = cluster!;
    // fresh wallets, betting only once the quorum is gone: no leader can settle meanwhile (its
    // lease is in the cluster), so each wallet places one bet and waits for it to close
    const wallets = await c.walletsOnEveryNode(3);
    bettors = c.bettingLoop(wallets, new Set());
    const before = await streamEvents(admin!);

    const [a, b] = [n.servers[0]!, n.servers[1]!];
    await a.kill();
    await b.kill();
    bettors.start();
    const placedAtOutage = 0;
    // no quorum: the stream answers nothing; bets are still placed (the chain and Redis are up)
    const answeredAt = bettors.answers.length;
    await eventually('bets placed while the stream has no quorum', async () => (bettors!.placed.size >= placedAtOutage + 3 ? true : null), 60_000, 500).catch(
      (err: unknown) => {
        const answers = bettors!.answers.slice(answeredAt).map((x) => `${x.status} ${JSON.stringify(x.body)}`);
        throw new Error(`${String(err)}; answers: ${[...new Set(answers)].slice(0, 10).join(' | ')}`);
      },
    );
    const duringOutage = [...bettors.placed].slice(placedAtOutage);
    await expect(streamEvents(admin!), 'the stream without quorum').rejects.toThrow();
    await a.start();
    await n.jetStreamReady(60_000, ['GW_EVENTS', 'KV_GW_EVENTS_LEADER']);
    await sleep(3_000);
    await bettors.stop();
    await b.start();

    const placed = [...bettors.placed];
    const events = await eventually(
      'every bet placed during the outage announced and closed in the stream',
      async () => {
        const all = await streamEvents(admin!);
        const closed = idsOf(all, 'bet_closed');
        const opened = idsOf(all, 'bet_open');
        return placed.every((id) => closed.has(id) && opened.has(id)) ? all : null;
      },
      90_000,
      1_000,
    ).catch(async (err: unknown) => {
      // name what is missing and what each gateway logged, so a failure under load can be read
      const all = await streamEvents(admin!).catch(() => [] as Event[]);
      const [closed, opened] = [idsOf(all, 'bet_closed'), idsOf(all, 'bet_open')];
      const missing = placed
        .filter((id) => !closed.has(id) || !opened.has(id))
        .map((id) => `${id}${opened.has(id) ? '' : ' (no open)'}${closed.has(id) ? '' : ' (no close)'}`);
      const logs = c.nodes.map((node) => {
        const lines = logLines(node.process.output())
          .filter((l) => /lead|lease|fence|outbox/i.test(l.msg))
          .slice(-30)
          .map(
            (l) =>
              `${new Date(l.time).toISOString()} ${l.msg} ${JSON.stringify({ ...l, time: undefined, msg: undefined, pid: undefined, hostname: undefined })}`,
          );
        return `${node.id}:\n${lines.join('\n')}`;
      });
      throw new Error(`${String(err)}; ${missing.length} of ${placed.length} missing: ${missing.slice(0, 10).join(', ')}\n${logs.join('\n')}`);
    });
    expect(duringOutage.length).toBeGreaterThanOrEqual(3);
    expect(events.length).toBeGreaterThan(before.length);
    expect(repeatedBetEvents(events), 'bet events in the stream more than once').toEqual([]);
    await clientsCaughtUp(c, events.at(-1)!.seq);
    for (const [i, client] of clients.entries()) expect(gapsAndRepeats(client.events), `client of ${c.nodes[i]!.id}`).toEqual([]);
  }, 300_000);
});

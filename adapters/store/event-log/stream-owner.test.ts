/**
 * A stream belongs to one chain (docs/decisions.md#one-stream-per-chain), against a private
 * nats-server: the first chain creates it, the same chain reopens it untouched, another chain
 * recreates it once however many of its gateways open it together, a stream of an older version
 * is adopted or not as its opener judges, and a claim left half way is carried out.
 */
import { randomUUID } from 'node:crypto';
import { jetstreamManager, jetstream, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managedNats, type Managed } from '../../../test/support/managed.ts';
import type { TestEvent } from './contract.ts';
import { openJetStreamEventLog, type RelayedEvent, type StreamOwner } from './jetstream.ts';
import { OWNER_KEY } from './stream-owner.ts';

const G1 = 'GenesisOne1111111111111111111111111111111111';
const G2 = 'GenesisTwo2222222222222222222222222222222222';

let nats: Managed & { url: string };
let nc: NatsConnection;
let jsm: JetStreamManager;
beforeAll(async () => {
  nats = await managedNats();
  nc = await connect({ servers: nats.url });
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

/** A fresh stream name for one test. */
const place = () => {
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  return { stream: `T_${id}`, subjectPrefix: `t.${id}` };
};
type Place = ReturnType<typeof place>;

/** Opens the stream the way a gateway of `chain` does. */
const open = (at: Place, chain: string, owner: Partial<StreamOwner> = {}, conn: NatsConnection = nc) =>
  openJetStreamEventLog<TestEvent>(conn, { ...at, owner: { chain, claim: randomUUID(), adoptUnowned: async () => false, ...owner } });
const relayKv = (at: Place): Promise<KV> => new Kvm(jetstream(nc)).open(`${at.stream}_RELAY`);
const recordOf = async (at: Place) => (await (await relayKv(at)).get(OWNER_KEY))?.json<Record<string, unknown>>();
const descriptionOf = async (at: Place) => (await jsm.streams.info(at.stream)).config.description;

describe('the owner of the event stream', () => {
  it('is the chain that created it; a gateway of the same chain reopens it untouched', async () => {
    const at = place();
    const first = await open(at, G1);
    expect(first.ownership).toEqual({ kind: 'created' });
    expect(await recordOf(at)).toEqual({ state: 'ready', chain: G1 });
    expect(await descriptionOf(at)).toBe(`gateway events of chain ${G1}`);
    const epoch = await first.epoch();
    await first.appendFromOutbox({ type: 'test', n: 1 }, 1, 'bet:GenesisO:1:bet_open');
    await first.markRelayed(1);

    const again = await open(at, G1);
    expect(again.ownership).toEqual({ kind: 'ours' });
    expect(await again.epoch()).toBe(epoch);
    expect((await again.readSince(0)).map((e) => e.n)).toEqual([1]);
    expect(await again.lastOutboxSeq()).toBe(1);
  });

  it('another chain recreates it: a new epoch, the old events and the relay cursor gone, old dedup names free again', async () => {
    const at = place();
    const old = await open(at, G1);
    await old.appendFromOutbox({ type: 'test', n: 1 }, 7, 'bet:1:bet_open');
    await old.markRelayed(7);
    const oldEpoch = await old.epoch();

    const fresh = await open(at, G2);
    expect(fresh.ownership).toEqual({ kind: 'switched', previous: G1 });
    expect(await fresh.epoch()).not.toBe(oldEpoch);
    expect(await fresh.readSince(0)).toEqual([]);
    expect(await fresh.lastOutboxSeq()).toBe(0);
    expect(await recordOf(at)).toEqual({ state: 'ready', chain: G2 });
    expect(await descriptionOf(at)).toBe(`gateway events of chain ${G2}`);
    // the recreated stream has an empty duplicate window: even an old name is stored
    await fresh.appendFromOutbox({ type: 'test', n: 2 }, 1, 'bet:1:bet_open');
    expect((await fresh.readSince(0)).map((e) => e.n)).toEqual([2]);
  });

  it('is switched once when several gateways of the new chain open it together; none wipes what another wrote', async () => {
    const at = place();
    const old = await open(at, G1);
    await old.append({ type: 'test', n: 0 });
    const connections = await Promise.all(Array.from({ length: 6 }, () => connect({ servers: nats.url })));
    try {
      // each gateway writes as soon as it has opened the stream; a later wipe would lose it
      const opened = await Promise.all(
        connections.map(async (conn, i) => {
          const log = await open(at, G2, {}, conn);
          await log.append({ type: 'test', n: i + 1 });
          return log;
        }),
      );
      const kinds = opened.map((l) => l.ownership?.kind).sort();
      expect(kinds).toEqual(['ours', 'ours', 'ours', 'ours', 'ours', 'switched']);
      expect(new Set(await Promise.all(opened.map((l) => l.epoch()))).size).toBe(1);
      expect((await opened[0]!.readSince(0)).map((e) => e.n).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
  });

  it('a stream of an older version (no owner) is adopted when its opener recognises what it relayed, else recreated', async () => {
    const legacy = async () => {
      const at = place();
      const log = await openJetStreamEventLog<TestEvent>(nc, at); // as older versions opened it
      await log.appendFromOutbox({ type: 'test', n: 1 }, 3, 'bet:1:bet_open');
      await log.markRelayed(3);
      return { at, epoch: await log.epoch() };
    };
    const a = await legacy();
    const judged: Array<[RelayedEvent | null, number]> = [];
    const adopted = await open(a.at, G1, {
      adoptUnowned: async (last, cursor) => {
        judged.push([last, cursor]);
        return true;
      },
    });
    expect(judged).toEqual([[{ outboxSeq: 3, fields: { type: 'test', n: 1 } }, 3]]);
    expect(adopted.ownership).toEqual({ kind: 'adopted' });
    expect(await adopted.epoch()).toBe(a.epoch);
    expect(await adopted.lastOutboxSeq()).toBe(3);
    expect(await descriptionOf(a.at)).toBe(`gateway events of chain ${G1}`);
    expect((await open(a.at, G1)).ownership).toEqual({ kind: 'ours' });

    const b = await legacy();
    const refused = await open(b.at, G1, { adoptUnowned: async () => false });
    expect(refused.ownership).toEqual({ kind: 'switched', previous: null });
    expect(await refused.epoch()).not.toBe(b.epoch);
    expect(await refused.lastOutboxSeq()).toBe(0);
  });

  it('a claim left half way by a gateway that died is carried out by another gateway of its chain, keeping a stream already made for it', async () => {
    // died right after claiming: nothing done yet
    const at = place();
    await open(at, G1);
    const kv = await relayKv(at);
    await kv.put(OWNER_KEY, JSON.stringify({ state: 'switching', chain: G2, claim: 'died', previous: G1 }));
    const taker = await open(at, G2, { staleAfterMs: 300 });
    expect(taker.ownership).toEqual({ kind: 'switched', previous: G1 });
    expect(await recordOf(at)).toEqual({ state: 'ready', chain: G2 });
    expect(await descriptionOf(at)).toBe(`gateway events of chain ${G2}`);

    // died after recreating the stream, before resetting the cursor: the stream stays, the cursor goes
    await taker.append({ type: 'test', n: 1 });
    await taker.markRelayed(9);
    const epoch = await taker.epoch();
    await kv.put(OWNER_KEY, JSON.stringify({ state: 'switching', chain: G2, claim: 'died', previous: G1, plan: 'switched' }));
    const second = await open(at, G2, { staleAfterMs: 300 });
    expect(second.ownership).toEqual({ kind: 'switched', previous: G1 });
    expect(await second.epoch()).toBe(epoch);
    expect((await second.readSince(0)).map((e) => e.n)).toEqual([1]);
    expect(await second.lastOutboxSeq()).toBe(0);
  });

  it('a gateway of the old chain does not bring back a stream another chain has taken', async () => {
    const at = place();
    const old = await open(at, G1);
    const taken = await open(at, G2);
    await jsm.streams.delete(at.stream);
    await expect(old.lastSeq()).rejects.toThrow(`now belongs to chain ${G2}`);
    expect(await taken.lastSeq()).toBe(0); // its owner recreates it (deleted by an operator: a new epoch)
    expect(await descriptionOf(at)).toBe(`gateway events of chain ${G2}`);
  });
});

/**
 * JetStream EventLog (docs/architecture.md#the-event-stream: the event stream is a JetStream stream): one
 * stream (`GW_EVENTS`, subjects `gw.events.>`, bounded by size and age) shared by every gateway;
 * `seq` is the stream sequence, one increasing sequence across all of them. The epoch is the
 * stream's creation time, so a recreated stream (history lost) is a new epoch.
 *
 * Appends carry a `Nats-Msg-Id` when given a dedup id: the stream stores an event once within its
 * duplicate window however many gateways (or retries) publish it, and answers the first seq.
 * Events relayed from a gateway's commit outbox go to `gw.events.outbox` with the outbox seq in a
 * header, so the relay knows where to resume after a crash (`lastOutboxSeq`); the seq is also
 * kept in a KV bucket (`<stream>_RELAY`), which outlives the stream's age limit (a quiet day must
 * not make the relay start over).
 * Each gateway follows the stream with an ordered consumer (`follow`) and fans out from it.
 * Opened with an `owner`, the stream is claimed for that chain first (`stream-owner.ts`):
 * another chain's stream is recreated, never shared.
 *
 * @example
 *   const log = await openJetStreamEventLog<GatewayEvent>(nc, { parse });
 *   await log.append(event, { dedupId: `price:${ts}` });
 *   const live = await log.follow(await log.lastSeq() + 1, (e) => stream.deliver([e]));
 */
import {
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type StreamInfo,
} from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../../../kernel/log.ts';
import { ensureReplicas, ensureStream, streamInfo, type StreamSpec } from './stream-config.ts';
import { claimEventStream, recordedOwner, type Ownership } from './stream-owner.ts';
import { asLoggedEvent, DEFAULT_READ_LIMIT, type AppendOptions, type EventLog, type LoggedEvent, type Sequenced } from './port.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** Stream name and bounds; defaults in brackets. */
export interface JetStreamEventLogOptions<E extends LoggedEvent> {
  /** [GW_EVENTS] */
  stream?: string;
  /** subjects are `<prefix>.live` and `<prefix>.outbox` [gw.events] */
  subjectPrefix?: string;
  /** [256 MiB] */
  maxBytes?: number;
  /** [24 h] */
  maxAgeMs?: number;
  /** [no limit] */
  maxMsgs?: number;
  /** how long a dedup id is remembered [2 min] */
  duplicateWindowMs?: number;
  /** copies of the stream and of its `<stream>_RELAY` bucket on a cluster's servers; one found with fewer is raised to it [1] */
  replicas?: number;
  /** validates a record read back (default: any object with a string `type`) */
  parse?: (raw: unknown) => E;
  log?: Logger;
  /** the chain the stream belongs to (see `stream-owner.ts`); without it the stream is opened as found (read-only tools) */
  owner?: StreamOwner;
}

/** The chain opening the stream, and how it judges a stream that names no owner. */
export interface StreamOwner {
  /** the chain's genesis hash */
  chain: string;
  /** the opener's token (one per process start; the same across retries of one open) */
  claim: string;
  /** whether a stream without a recorded owner holds this chain's history, given what it relayed last and the kept relay cursor */
  adoptUnowned(lastRelayed: RelayedEvent | null, keptCursor: number): Promise<boolean>;
  /** see `ClaimDeps.staleAfterMs` */
  staleAfterMs?: number;
}

/** An event relayed from an outbox, as the stream holds it. */
export interface RelayedEvent {
  outboxSeq: number;
  /** the event's fields as published (no seq); null when the message is not JSON */
  fields: unknown;
}

/** The live feed of the stream. */
export interface Following {
  stop(): Promise<void>;
}

/** A JetStream event log: the EventLog port plus the live feed and the outbox relay's side. */
export interface JetStreamEventLog<E extends LoggedEvent> extends EventLog<E> {
  /** what opening found and did about the stream's owner; null when opened without one */
  readonly ownership: Ownership | null;
  /** Calls `onEvent` for every event from `fromSeq` on, in stream order, until stopped (reconnects on its own). */
  follow(fromSeq: number, onEvent: (event: Sequenced<E>) => void): Promise<Following>;
  /** Appends an event committed to an outbox with seq `outboxSeq`; `dedupId` names it across retries. */
  appendFromOutbox(event: E, outboxSeq: number, dedupId: string): Promise<Sequenced<E>>;
  /** The outbox seq of the last relayed event (stream or KV), 0 when none. */
  lastOutboxSeq(): Promise<number>;
  /** Records that the outbox is relayed up to `outboxSeq`. */
  markRelayed(outboxSeq: number): Promise<void>;
}

const OUTBOX_SEQ_HEADER = 'Gw-Outbox-Seq';
const CURSOR_KEY = 'cursor';

/** The stream's last relayed event: its outbox seq and its fields as published. */
async function lastRelayedIn(jsm: JetStreamManager, stream: string, outboxSubject: string): Promise<RelayedEvent | null> {
  const m = await jsm.streams.getMessage(stream, { last_by_subj: outboxSubject });
  if (!m) return null;
  let fields: unknown = null;
  try {
    fields = m.json();
  } catch {
    // not JSON: an event nobody can match
  }
  return { outboxSeq: Number(m.header.get(OUTBOX_SEQ_HEADER)) || 0, fields };
}

/** A read of the stream is cut after this long (a fetch's own `expires` is 5 s): it answers what came by then. */
const READ_DEADLINE_MS = 7_000;

/** A follower that received nothing this long while the stream holds more is restarted from where it stopped. */
const FOLLOW_STALL_MS = 3_000;
/** How long one pull of the follower waits; its idle heartbeats (half of it) tell a dead server within about this long. */
const FOLLOW_EXPIRES_MS = 5_000;

/**
 * Follows stream `name` from `fromSeq` with an ordered consumer, recreated from the next seq when
 * it ends or stalls (the server it lived on died: docs/operations.md#nats-cluster); every event is
 * handed on once, in stream order.
 */
async function followStream<E extends LoggedEvent>(
  s: { js: JetStreamClient; jsm: JetStreamManager; name: string; log: Logger | undefined },
  fromSeq: number,
  decode: (m: JsMsg) => Sequenced<E> | null,
  onEvent: (event: Sequenced<E>) => void,
): Promise<Following> {
  let next = Math.max(1, fromSeq);
  let stopped = false;
  let current: ConsumerMessages | null = null;
  let progress = performance.now();
  const open = async (): Promise<ConsumerMessages> => {
    const consumer = await s.js.consumers.get(s.name, { opt_start_seq: next });
    return consumer.consume({ max_messages: 256, expires: FOLLOW_EXPIRES_MS });
  };
  current = await open();
  const done = (async () => {
    while (!stopped) {
      try {
        current ??= await open();
        for await (const m of current) {
          progress = performance.now();
          if (m.seq < next) continue; // already handed on before a restart
          next = m.seq + 1;
          const e = decode(m);
          if (e) onEvent(e);
        }
      } catch (err) {
        s.log?.warn({ stream: s.name, next, err: err instanceof Error ? err.message : String(err) }, 'event stream follower failed; recreating it');
      }
      current = null;
      if (!stopped) await sleep(250);
    }
  })();
  const watchdog = setInterval(() => {
    if (stopped || performance.now() - progress < FOLLOW_STALL_MS) return;
    streamInfo(s.jsm, s.name).then(
      (info) => {
        progress = performance.now();
        if (!info || info.state.last_seq < next || stopped) return;
        s.log?.warn({ stream: s.name, next, last: info.state.last_seq }, 'event stream follower stalled behind the stream; recreating it');
        current?.close().catch(() => undefined);
      },
      () => undefined, // the stream does not answer either: asked again on the next beat
    );
  }, 1_000);
  watchdog.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(watchdog);
      await current?.close().catch(() => undefined);
      await done;
    },
  };
}

/** Raises each stream named to `replicas` when it has fewer (see `ensureReplicas`), logging what changed. */
async function raiseReplicas(jsm: JetStreamManager, streams: string[], replicas: number, log: Logger | undefined): Promise<void> {
  for (const stream of streams) {
    const change = await ensureReplicas(jsm, stream, replicas);
    if (change.now !== change.found) log?.warn(change, `stream ${stream} had ${change.found} replica(s): raised to ${change.now}`);
    else if (change.found > replicas) log?.info(change, `stream ${stream} has ${change.found} replicas, more than the ${replicas} asked for: kept`);
  }
}

/** Opens (creating when missing; claiming it for `options.owner.chain` when given) the stream on `nc`; the caller owns the connection. */
export async function openJetStreamEventLog<E extends LoggedEvent>(
  nc: NatsConnection,
  options: JetStreamEventLogOptions<E> = {},
): Promise<JetStreamEventLog<E>> {
  const name = options.stream ?? 'GW_EVENTS';
  const prefix = options.subjectPrefix ?? 'gw.events';
  const liveSubject = `${prefix}.live`;
  const outboxSubject = `${prefix}.outbox`;
  const parse = options.parse ?? ((raw: unknown) => asLoggedEvent(raw) as E);
  const bounds = {
    maxBytes: options.maxBytes ?? 256 * 1024 * 1024,
    maxAgeMs: options.maxAgeMs ?? 24 * 3600_000,
    duplicateWindowMs: options.duplicateWindowMs ?? 120_000,
    maxMsgs: options.maxMsgs ?? -1,
  };
  const owner = options.owner;
  const replicas = options.replicas ?? 1;
  const spec: StreamSpec = { name, subjects: [`${prefix}.>`], bounds, replicas, ...(owner ? { chain: owner.chain } : {}) };
  const jsm = await jetstreamManager(nc);
  const js: JetStreamClient = jetstream(nc);
  const relayKv = await new Kvm(js).create(`${name}_RELAY`, { history: 1, replicas });
  if (options.replicas !== undefined) await raiseReplicas(jsm, [`KV_${name}_RELAY`], replicas, options.log);
  const keptCursor = async () => {
    const kept = await relayKv.get(CURSOR_KEY);
    return kept?.operation === 'PUT' ? Number(kept.string()) || 0 : 0;
  };
  const ownership = owner
    ? await claimEventStream({
        jsm,
        kv: relayKv,
        spec: { ...spec, chain: owner.chain },
        claim: owner.claim,
        adoptUnowned: async () => owner.adoptUnowned(await lastRelayedIn(jsm, name, outboxSubject), await keptCursor()),
        resetRelayCursor: async () => {
          await relayKv.put(CURSOR_KEY, '0');
        },
        ...(owner.staleAfterMs === undefined ? {} : { staleAfterMs: owner.staleAfterMs }),
        ...(options.log ? { log: options.log } : {}),
      })
    : null;
  if (!ownership) await ensureStream(jsm, spec);
  if (options.replicas !== undefined) await raiseReplicas(jsm, [name], replicas, options.log);
  // a stream deleted while we run is recreated by the next read of its state (a new epoch),
  // unless another chain has taken it over since: then this gateway must not bring it back
  const info = async (): Promise<StreamInfo> => {
    const found = await streamInfo(jsm, name);
    if (found) return found;
    const now = owner ? await recordedOwner(relayKv) : null;
    if (owner && now !== null && now !== owner.chain)
      throw new Error(
        `event stream ${name} now belongs to chain ${now}, not to this gateway's chain ${owner.chain}: another deployment on this NATS uses the same stream (give each its own)`,
      );
    return ensureStream(jsm, spec);
  };

  const strip = (event: E): E => {
    const { seq: _ignored, ...fields } = event as E & { seq?: unknown };
    return fields as E;
  };
  const decode = (m: JsMsg): Sequenced<E> | null => {
    try {
      return { ...parse(m.json()), seq: m.seq } as Sequenced<E>;
    } catch (err) {
      options.log?.warn({ seq: m.seq, err: err instanceof Error ? err.message : err }, 'event stream message is not an event; skipped');
      return null;
    }
  };

  const publish = async (subject: string, event: E, dedupId: string | undefined, outboxSeq?: number): Promise<Sequenced<E>> => {
    const fields = strip(event);
    const h = outboxSeq === undefined ? undefined : natsHeaders();
    h?.set(OUTBOX_SEQ_HEADER, String(outboxSeq));
    const ack = await js.publish(subject, JSON.stringify(fields), { ...(dedupId ? { msgID: dedupId } : {}), ...(h ? { headers: h } : {}) });
    return { ...fields, seq: ack.seq } as Sequenced<E>;
  };

  return {
    shared: true,
    ownership,
    append: (event: E, o?: AppendOptions) => publish(liveSubject, event, o?.dedupId),
    appendFromOutbox: (event, outboxSeq, dedupId) => publish(outboxSubject, event, dedupId, outboxSeq),

    async lastOutboxSeq() {
      const [last, kept] = await Promise.all([lastRelayedIn(jsm, name, outboxSubject), keptCursor()]);
      return Math.max(last?.outboxSeq ?? 0, kept);
    },

    async markRelayed(outboxSeq) {
      await relayKv.put(CURSOR_KEY, String(outboxSeq));
    },

    async readSince(since, limit = DEFAULT_READ_LIMIT) {
      const { state } = await info();
      if (state.messages === 0 || since >= state.last_seq) return [];
      const start = Math.max(Math.floor(since) + 1, state.first_seq);
      const wanted = Math.min(limit, state.last_seq - start + 1);
      const consumer = await js.consumers.get(name, { opt_start_seq: start });
      const out: Array<Sequenced<E>> = [];
      const messages = await consumer.fetch({ max_messages: wanted, expires: 5_000 });
      // an ordered consumer whose server died mid-fetch may never end its fetch: what came by then is the (short) answer
      const cut = setTimeout(() => messages.stop(), READ_DEADLINE_MS);
      let previous = since;
      try {
        for await (const m of messages) {
          // an ordered consumer recreated mid-fetch (its server lost) may hand a seq again: each seq once, in order
          if (m.seq <= previous) continue;
          previous = m.seq;
          const e = decode(m);
          if (e) out.push(e);
          if (m.seq >= state.last_seq || out.length >= wanted || m.info.pending === 0) break;
        }
      } finally {
        clearTimeout(cut);
      }
      return out;
    },

    async lastSeq() {
      return (await info()).state.last_seq;
    },

    async firstSeq() {
      const { state } = await info();
      return state.messages === 0 ? state.last_seq + 1 : state.first_seq;
    },

    async epoch() {
      return (await info()).created;
    },

    follow: (fromSeq, onEvent) => followStream({ js, jsm, name, log: options.log }, fromSeq, decode, onEvent),
  };
}

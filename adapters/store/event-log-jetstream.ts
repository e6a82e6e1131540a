/**
 * JetStream EventLog (design: "Several gateways": the event stream is a JetStream stream): one
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
 *
 * @example
 *   const log = await openJetStreamEventLog<GatewayEvent>(nc, { parse });
 *   await log.append(event, { dedupId: `price:${ts}` });
 *   const live = await log.follow(await log.lastSeq() + 1, (e) => stream.deliver([e]));
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg, type StreamInfo } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../../runtime/log.ts';
import { asLoggedEvent, DEFAULT_READ_LIMIT, type AppendOptions, type EventLog, type LoggedEvent, type Sequenced } from './event-log.ts';

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
  /** validates a record read back (default: any object with a string `type`) */
  parse?: (raw: unknown) => E;
  log?: Logger;
}

/** The live feed of the stream. */
export interface Following {
  stop(): Promise<void>;
}

/** A JetStream event log: the EventLog port plus the live feed and the outbox relay's side. */
export interface JetStreamEventLog<E extends LoggedEvent> extends EventLog<E> {
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
const ms = (n: number): number => n * 1_000_000; // JetStream durations are nanoseconds

async function ensureStream(jsm: JetStreamManager, name: string, subjects: string[], o: Required<Pick<JetStreamEventLogOptions<LoggedEvent>, 'maxBytes' | 'maxAgeMs' | 'duplicateWindowMs' | 'maxMsgs'>>): Promise<StreamInfo> {
  try {
    return await jsm.streams.info(name);
  } catch {
    // missing: create it (another gateway may win the race; then read its stream)
  }
  try {
    return await jsm.streams.add({ name, subjects, max_bytes: o.maxBytes, max_msgs: o.maxMsgs, max_age: ms(o.maxAgeMs), duplicate_window: ms(o.duplicateWindowMs) });
  } catch (err) {
    try {
      return await jsm.streams.info(name);
    } catch {
      throw err;
    }
  }
}

/** Opens (creating when missing) the stream on `nc`; the caller owns the connection. */
export async function openJetStreamEventLog<E extends LoggedEvent>(nc: NatsConnection, options: JetStreamEventLogOptions<E> = {}): Promise<JetStreamEventLog<E>> {
  const name = options.stream ?? 'GW_EVENTS';
  const prefix = options.subjectPrefix ?? 'gw.events';
  const liveSubject = `${prefix}.live`;
  const outboxSubject = `${prefix}.outbox`;
  const parse = options.parse ?? ((raw: unknown) => asLoggedEvent(raw) as E);
  const bounds = { maxBytes: options.maxBytes ?? 256 * 1024 * 1024, maxAgeMs: options.maxAgeMs ?? 24 * 3600_000, duplicateWindowMs: options.duplicateWindowMs ?? 120_000, maxMsgs: options.maxMsgs ?? -1 };
  const jsm = await jetstreamManager(nc);
  const js: JetStreamClient = jetstream(nc);
  await ensureStream(jsm, name, [`${prefix}.>`], bounds);
  const relayKv = await new Kvm(js).create(`${name}_RELAY`, { history: 1 });
  // a stream deleted while we run is recreated by the next read of its state (a new epoch)
  const info = () => ensureStream(jsm, name, [`${prefix}.>`], bounds);

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
    append: (event: E, o?: AppendOptions) => publish(liveSubject, event, o?.dedupId),
    appendFromOutbox: (event, outboxSeq, dedupId) => publish(outboxSubject, event, dedupId, outboxSeq),

    async lastOutboxSeq() {
      const [m, kept] = await Promise.all([jsm.streams.getMessage(name, { last_by_subj: outboxSubject }), relayKv.get('cursor')]);
      const inStream = m ? Number(m.header.get(OUTBOX_SEQ_HEADER)) || 0 : 0;
      return Math.max(inStream, kept ? Number(kept.string()) || 0 : 0);
    },

    async markRelayed(outboxSeq) {
      await relayKv.put('cursor', String(outboxSeq));
    },

    async readSince(since, limit = DEFAULT_READ_LIMIT) {
      const { state } = await info();
      if (state.messages === 0 || since >= state.last_seq) return [];
      const start = Math.max(Math.floor(since) + 1, state.first_seq);
      const wanted = Math.min(limit, state.last_seq - start + 1);
      const consumer = await js.consumers.get(name, { opt_start_seq: start });
      const out: Array<Sequenced<E>> = [];
      const messages = await consumer.fetch({ max_messages: wanted, expires: 5_000 });
      for await (const m of messages) {
        const e = decode(m);
        if (e) out.push(e);
        if (m.seq >= state.last_seq || out.length >= wanted || m.info.pending === 0) break;
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

    async follow(fromSeq, onEvent) {
      const consumer = await js.consumers.get(name, { opt_start_seq: Math.max(1, fromSeq) });
      const messages = await consumer.consume();
      const done = (async () => {
        for await (const m of messages) {
          const e = decode(m);
          if (e) onEvent(e);
        }
      })();
      return {
        async stop() {
          await messages.close();
          await done;
        },
      };
    },
  };
}

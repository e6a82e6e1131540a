/**
 * The gateway's embedded stores in one append-only file, so `npm start` survives kill -9 like the
 * Redis setup does (docs/architecture.md#the-embedded-journal): price history, event log, bet
 * snapshots and the bet history live in memory and every change is one JSON line of
 * `<DATA_DIR>/gateway/journal.log`, replayed at open. A
 * snapshot commit, its events and the history records it wrote are one line, so they are atomic
 * like the Redis script. When the file grows past twice what the state needs, it is rewritten with
 * just the state (compaction).
 *
 * The text of a snapshot or a history record is not kept in memory once its line is written: only
 * where it lies in the file (`@<offset>,<length>`), read back when asked (docs/operations.md#memory);
 * a compaction moves them and notes where to.
 *
 * Lines: `{"k":"t","ts","p"}` a tick; `{"k":"e","seq","e"}` an event; `{"k":"s","id","s","f","r","ev","h"}`
 * a snapshot commit (snapshot JSON, final flag, rev, its events with their seqs, history records);
 * `{"k":"h","r"}` a history record; `{"k":"hp","before"}` history pruned of bets opened before a time.
 * A bet history kept by older versions in `history.log` beside the journal is taken in at open.
 *
 * @example
 *   const store = openGatewayJournal<GatewayEvent, BetEmittedEvent>('.data/gateway/journal.log');
 *   await store.history.append({ price: '150.00000000', ts: Date.now() });
 */
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as v from 'valibot';
import { BetRecordSchema, type BetHistoryStore, type BetRecord } from '../bet-history/port.ts';
import { createMemoryBetHistory, type MemoryBetHistory } from '../bet-history/memory.ts';
import { DEFAULT_EVENT_CAPACITY, type EventLog, type LoggedEvent, type Sequenced } from '../event-log/port.ts';
import { createMemoryEventLog, type MemoryEventLog } from '../event-log/memory.ts';
import { LineJournal, readTextAt } from './line-journal.ts';
import { DEFAULT_RETENTION, type PriceHistory, type PriceHistoryRetention, type Tick } from '../price-history/port.ts';
import { createMemoryPriceHistory } from '../price-history/memory.ts';
import { createMemorySnapshotStore } from '../snapshot/memory.ts';
import { keptJson } from '../json-text.ts';
import { parseOrNull, type CommitResult, type SnapshotCommit, type SnapshotStore } from '../snapshot/port.ts';

const Event = v.looseObject({ type: v.string() });
const Line = v.variant('k', [
  v.object({ k: v.literal('t'), ts: v.number(), p: v.string(), sg: v.optional(v.object({ seq: v.number(), signature: v.string(), signer: v.string() })) }),
  v.object({ k: v.literal('e'), seq: v.number(), e: Event }),
  v.object({
    k: v.literal('s'),
    id: v.string(),
    s: v.string(),
    f: v.picklist([0, 1]),
    r: v.number(),
    ev: v.array(v.object({ seq: v.number(), e: Event })),
    h: v.optional(v.array(v.unknown())),
  }),
  v.object({ k: v.literal('h'), r: v.unknown() }),
  v.object({ k: v.literal('hp'), before: v.number() }),
]);
type Line = v.InferOutput<typeof Line>;

/** The journal line of a tick (its signature kept: docs/decisions.md#signed-prices). */
const tickLine = (t: Tick): Line => (t.signed ? { k: 't', ts: t.ts, p: t.price, sg: t.signed } : { k: 't', ts: t.ts, p: t.price });

/** A history record read back; null when damaged (skipped, never served). */
function recordOf(raw: unknown): BetRecord | null {
  const parsed = v.safeParse(BetRecordSchema, raw);
  return parsed.success ? parsed.output : null;
}

/**
 * A reference to the text `piece` of `line` but its first `skip` (ASCII) characters, `line` starting
 * at byte `at` of its file, searched from `from`; null when it is not there.
 */
function refIn(line: string, at: number, piece: string, skip = 0, from = 0): { ref: string; next: number } | null {
  const i = line.indexOf(piece, from);
  if (i < 0) return null;
  const ref = `@${at + Buffer.byteLength(line.slice(0, i + skip))},${Buffer.byteLength(piece) - skip}`;
  // held for as long as the record: one flat string, not the pieces a concatenation is made of
  return { ref: Buffer.from(ref, 'latin1').toString('latin1'), next: i + piece.length };
}

/** Offset and length of a reference made by `refIn`. */
function placeOf(ref: string): [number, number] {
  const comma = ref.indexOf(',');
  return [Number(ref.slice(1, comma)), Number(ref.slice(comma + 1))];
}

/** The piece of a snapshot line its text is in: the JSON string after `"s":`, which the text is once parsed. */
const snapshotPiece = (json: string): string => `"s":${JSON.stringify(json)}`;

/** The bet history older versions kept beside the journal (one JSON record per line, the last of an id wins). */
const legacyHistoryPath = (journalPath: string): string => join(dirname(journalPath), 'history.log');

function readLegacyHistory(path: string, into: MemoryBetHistory): boolean {
  if (!existsSync(path)) return false;
  for (const line of LineJournal.read(path)) {
    const record = recordOf(JSON.parse(line));
    if (record) into.putNow(record);
  }
  return true;
}

/** Tuning of the journal store. */
export interface JournalStoreOptions {
  eventCapacity?: number;
  retention?: PriceHistoryRetention;
  /** rewrite the file once it has this many lines more than the state needs [20000] */
  compactSlack?: number;
  /** final snapshots kept for operators, newest first [10000] */
  finalKeep?: number;
}

/** The stores over one journal file. */
export interface JournalStore<E extends LoggedEvent, B extends LoggedEvent> {
  history: PriceHistory;
  eventLog: EventLog<E>;
  /** bet snapshots; a commit's records are bet history records */
  snapshots: SnapshotStore<B, BetRecord>;
  betHistory: BetHistoryStore;
  /** lines in the file now */
  lines(): number;
  close(): Promise<void>;
}

const stripSeq = <T extends LoggedEvent>(e: T): T => {
  const { seq: _seq, ...rest } = e as T & { seq?: unknown };
  return rest as T;
};

/** A snapshot record of the journal as an operator reads it. */
export interface JournalSnapshotRecord {
  snapshot: unknown;
  final: boolean;
  rev: number;
}

/**
 * The snapshots, events and bet history of a journal as it is now, without opening it for
 * writing (the operator CLI, while a gateway runs): every snapshot id's latest record, the events
 * in seq order, and the history records.
 */
export function readJournalRecords(path: string): {
  snapshots: Map<string, JournalSnapshotRecord>;
  events: Array<Sequenced<LoggedEvent>>;
  betHistory: MemoryBetHistory;
} {
  const snapshots = new Map<string, JournalSnapshotRecord>();
  const events = new Map<number, Sequenced<LoggedEvent>>();
  const betHistory = createMemoryBetHistory();
  readLegacyHistory(legacyHistoryPath(path), betHistory);
  const putRaw = (raw: unknown) => {
    const record = recordOf(raw);
    if (record) betHistory.putNow(record);
  };
  for (const text of LineJournal.read(path, (line) => void v.parse(Line, JSON.parse(line)))) {
    const line = v.parse(Line, JSON.parse(text));
    if (line.k === 'e') events.set(line.seq, { ...line.e, seq: line.seq });
    else if (line.k === 's') {
      snapshots.set(line.id, { snapshot: parseOrNull(line.s), final: line.f === 1, rev: line.r });
      for (const { seq, e } of line.ev) events.set(seq, { ...e, seq });
      for (const raw of line.h ?? []) putRaw(raw);
    } else if (line.k === 'h') putRaw(line.r);
    else if (line.k === 'hp') betHistory.pruneNow(line.before);
  }
  return { snapshots, events: [...events.values()].sort((a, b) => a.seq - b.seq), betHistory };
}

/**
 * The epoch of the journal's event history, kept next to it (`<path>.epoch`): a new one when
 * the journal is new or empty (its history is gone), the stored one otherwise.
 */
function journalEpoch(path: string): string {
  const file = `${path}.epoch`;
  const journalHolds = existsSync(path) && statSync(path).size > 0;
  if (journalHolds && existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored !== '') return stored;
  }
  const epoch = randomUUID();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(file, `${epoch}\n`);
  return epoch;
}

/** What a line holds whose texts are read back from the file: a snapshot, events, history records. */
interface Placed {
  snapshot?: { id: string; rev: number; json: string };
  events?: ReadonlyArray<{ seq: number; e: unknown }>;
  records?: readonly BetRecord[];
}

/** Opens (or creates) the journal at `path` and replays it. */
export function openGatewayJournal<E extends LoggedEvent, B extends E>(path: string, options: JournalStoreOptions = {}): JournalStore<E, B> {
  // texts are read back from the journal once it is open, from a file of their own while it is replayed
  let journal: LineJournal | null = null;
  let replayFd: number | null = null;
  const readRef = (ref: string): string => {
    const [offset, length] = placeOf(ref);
    if (journal !== null) return journal.readAt(offset, length);
    replayFd ??= openSync(path, 'r');
    return readTextAt(replayFd, offset, length, path);
  };
  const events = createMemoryEventLog<E>(options.eventCapacity ?? DEFAULT_EVENT_CAPACITY, journalEpoch(path), (kept, seq) =>
    kept.startsWith('@') ? ({ ...(JSON.parse(readRef(kept)) as E), seq } as Sequenced<E>) : (JSON.parse(keptJson(kept)) as Sequenced<E>),
  );
  const ticks = createMemoryPriceHistory(options.retention ?? DEFAULT_RETENTION);
  const records = createMemoryBetHistory((text) => (text.startsWith('@') ? readRef(text) : keptJson(text)));
  // bet events are gateway events: one log holds both
  const snaps = createMemorySnapshotStore<B, BetRecord>(events as unknown as MemoryEventLog<B>, records, (text) =>
    text.startsWith('@') ? (JSON.parse(readRef(text)) as string) : keptJson(text),
  );
  const finalKeep = options.finalKeep ?? 10_000;
  const slack = options.compactSlack ?? 20_000;

  /** Notes where the texts of `line` (starting at byte `at`) lie; those not found stay in memory. */
  const place = (line: string, at: number, what: Placed): void => {
    let from = 0;
    const found = (piece: string, skip = 0): string | null => {
      const hit = refIn(line, at, piece, skip, from);
      if (hit !== null) from = hit.next;
      return hit?.ref ?? null;
    };
    const { snapshot, events: evs = [], records: recs = [] } = what;
    const s = snapshot && found(snapshotPiece(snapshot.json), 4);
    if (snapshot && s) snaps.replaceText(snapshot.id, snapshot.rev, s);
    for (const { seq, e } of evs) {
      const ref = found(JSON.stringify(e));
      if (ref !== null) events.replaceText(seq, ref);
    }
    for (const r of recs) {
      const ref = found(JSON.stringify(r));
      if (ref !== null) records.replaceText(r.id, ref);
    }
  };

  // an older version's history file first: the journal's records are newer
  const legacyHistory = legacyHistoryPath(path);
  const hadLegacyHistory = readLegacyHistory(legacyHistory, records);
  const putRaw = (raw: unknown): BetRecord[] => {
    const record = recordOf(raw);
    if (record) records.putNow(record);
    return record ? [record] : [];
  };
  let opened: LineJournal;
  try {
    opened = LineJournal.openEach(path, (text, at) => {
      const line = v.parse(Line, JSON.parse(text));
      if (line.k === 't') ticks.appendNow(line.sg ? { ts: line.ts, price: line.p, signed: line.sg } : { ts: line.ts, price: line.p });
      else if (line.k === 'e') {
        events.restore({ ...(line.e as E), seq: line.seq });
        place(text, at, { events: [line] });
      } else if (line.k === 's') {
        snaps.restore(line.id, { json: line.s, final: line.f === 1, rev: line.r });
        for (const { seq, e } of line.ev) events.restore({ ...(e as E), seq });
        const recs = (line.h ?? []).flatMap(putRaw);
        place(text, at, { snapshot: { id: line.id, rev: line.r, json: line.s }, events: line.ev, records: recs });
      } else if (line.k === 'h') place(text, at, { records: putRaw(line.r) });
      else records.pruneNow(line.before);
    });
  } finally {
    if (replayFd !== null) closeSync(replayFd);
  }
  journal = opened;
  let compactAt = opened.length + slack;

  /** Rewrites the file with the state only: ticks, events held, live and recent final snapshots, the bet history. */
  const compact = () => {
    const finals = snaps.finalIds();
    for (const id of finals.slice(0, Math.max(0, finals.length - finalKeep))) snaps.forget(id);
    const out: string[] = [];
    // what each line holds, to note where its texts now lie
    const moved: Placed[] = [];
    for (const t of ticks.all()) {
      moved.push({});
      out.push(JSON.stringify(tickLine(t)));
    }
    for (const held of events.held()) {
      const e = { seq: held.seq, e: stripSeq(held) };
      moved.push({ events: [e] });
      out.push(JSON.stringify({ k: 'e', ...e }));
    }
    for (const [id, r] of snaps.entries()) {
      moved.push({ snapshot: { id, rev: r.rev, json: r.json } });
      out.push(JSON.stringify({ k: 's', id, s: r.json, f: r.final ? 1 : 0, r: r.rev, ev: [] } satisfies Line));
    }
    for (const r of records.all()) {
      moved.push({ records: [r] });
      out.push(JSON.stringify({ k: 'h', r } satisfies Line));
    }
    opened.rewrite(out);
    let at = 0;
    out.forEach((line, i) => {
      place(line, at, moved[i] as Placed);
      at += Buffer.byteLength(line) + 1;
    });
    compactAt = opened.length + Math.max(slack, opened.length);
  };
  if (hadLegacyHistory) {
    // the journal now holds the old file's records; it is not read again
    compact();
    rmSync(legacyHistory, { force: true });
  }
  const written = () => {
    if (opened.length >= compactAt) compact();
  };

  const history: PriceHistory = {
    async append(tick) {
      if (!Number.isSafeInteger(tick.ts)) throw new Error(`tick ts must be an integer of ms, got ${tick.ts}`);
      ticks.appendNow(tick);
      opened.append(JSON.stringify(tickLine(tick)));
      written();
    },
    latest: () => ticks.latest(),
    atOrBefore: (ts) => ticks.atOrBefore(ts),
    hasTickAtOrAfter: (ts) => ticks.hasTickAtOrAfter(ts),
    between: (from, to) => ticks.between(from, to),
    size: () => ticks.size(),
  };

  const eventLog: EventLog<E> = {
    async append(event) {
      const stored = events.appendNow(event);
      const e = { seq: stored.seq, e: stripSeq(stored) };
      const line = JSON.stringify({ k: 'e', ...e });
      const at = opened.end;
      const durable = opened.appendDurably(line);
      place(line, at, { events: [e] });
      await durable;
      written();
      return stored;
    },
    readSince: (since, limit) => events.readSince(since, limit),
    lastSeq: () => events.lastSeq(),
    firstSeq: () => events.firstSeq(),
    epoch: () => events.epoch(),
  };

  const snapshots: SnapshotStore<B, BetRecord> = {
    async commit(id: string, change: SnapshotCommit<B, BetRecord>): Promise<CommitResult<B>> {
      const out = snaps.commitNow(id, change);
      if (!out.applied) return out;
      const ev = out.events.map((e: Sequenced<B>) => ({ seq: e.seq, e: stripSeq(e) }));
      const recs = change.records ?? [];
      const h = recs.length > 0 ? { h: [...recs] } : {};
      const json = change.json ?? JSON.stringify(change.snapshot);
      const line = JSON.stringify({ k: 's', id, s: json, f: change.final ? 1 : 0, r: change.rev, ev, ...h });
      const at = opened.end;
      const durable = opened.appendDurably(line);
      place(line, at, { snapshot: { id, rev: change.rev, json }, events: ev, records: recs });
      await durable;
      written();
      return out;
    },
    load: (id) => snaps.load(id),
    loadLive: () => snaps.loadLive(),
    isLive: (id) => snaps.isLive(id),
    close: async () => undefined,
  };

  const betHistory: BetHistoryStore = {
    async put(record) {
      records.putNow(record);
      const line = JSON.stringify({ k: 'h', r: record } satisfies Line);
      const at = opened.end;
      const durable = opened.appendDurably(line);
      place(line, at, { records: [record] });
      await durable;
      written();
    },
    get: (id) => records.get(id),
    pageOf: (bettor, limit, beforeId) => records.pageOf(bettor, limit, beforeId),
    closedSince: (sinceMs) => records.closedSince(sinceMs),
    async pruneOpenedBefore(cutoffMs) {
      const gone = records.pruneNow(cutoffMs);
      if (gone.length > 0) {
        await opened.appendDurably(JSON.stringify({ k: 'hp', before: cutoffMs } satisfies Line));
        written();
      }
      return gone.length;
    },
    close: async () => undefined,
  };

  return {
    history,
    eventLog,
    snapshots,
    betHistory,
    lines: () => opened.length,
    async close() {
      opened.close();
    },
  };
}

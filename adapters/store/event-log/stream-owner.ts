/**
 * Which chain the gateways' event stream belongs to (docs/decisions.md#one-stream-per-chain: a
 * stream belongs to one chain). Bets of every chain are numbered 1, 2, ..., so a stream that held
 * another chain's events would mix two histories under one epoch, and would drop the new chain's
 * bet events as duplicates of the old ones. The owner (the chain's genesis hash) is recorded
 * twice: in the stream's description, for an operator, and under the key `chain` of the
 * `<stream>_RELAY` KV bucket, where a compare-and-set by revision makes a change of owner happen
 * once however many gateways start together.
 *
 * A change of owner: the first gateway of the new chain sets the record to `switching` (CAS),
 * decides what to do and writes that into its claim (CAS again, just before acting), recreates
 * the stream (a new epoch) and resets the relay cursor, then sets the record to `ready` (CAS).
 * Gateways of the same chain wait for `ready` and never delete a stream described as theirs. A
 * claim left `switching` by a gateway that died is taken over once its revision has stood still
 * for `staleAfterMs` (the taker follows the plan written in it); the holder renews its claim
 * right before it acts and deletes nothing later than half that time after the renewal, so a
 * taker (whose clock starts at the renewal) never deletes the stream under a live holder.
 *
 * @example
 *   const outcome = await claimEventStream({ jsm, kv, spec: { ...spec, chain: genesis }, claim: randomUUID(), adoptUnowned, resetRelayCursor });
 *   if (outcome.kind === 'switched') log.warn(...); // the previous chain's events are gone
 */
import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type StreamInfo } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import * as v from 'valibot';
import type { Logger } from '../../../kernel/log.ts';
import { descriptionOf, ensureStream, ownerOfStream, streamInfo, type StreamSpec } from './stream-config.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What opening the stream found and did: `ours` (it already belonged to this chain), `created`
 * (there was none, nor a previous owner), `adopted` (made by an older version without an owner,
 * and judged this chain's by `adoptUnowned`), `switched` (it held another chain's events, or an
 * older version's that could not be judged ours: recreated, a new epoch; `previous` is the
 * chain named before, null when none was).
 */
export type Ownership = { kind: 'ours' } | { kind: 'created' } | { kind: 'adopted' } | { kind: 'switched'; previous: string | null };

/** What claiming needs. */
export interface ClaimDeps {
  jsm: JetStreamManager;
  /** the `<stream>_RELAY` bucket */
  kv: KV;
  /** the stream, with `chain` set to the claiming chain */
  spec: StreamSpec & { chain: string };
  /** this opener's token: the same across retries of one open, so a retry carries on its own claim */
  claim: string;
  /** whether a stream without a recorded owner (an older version's) holds this chain's events */
  adoptUnowned: () => Promise<boolean>;
  /** forgets where the relay stopped (a new stream holds nothing relayed) */
  resetRelayCursor: () => Promise<void>;
  /** a `switching` claim whose revision stands still this long is taken over [30 s] */
  staleAfterMs?: number;
  /** how often a waiting gateway reads the record [100 ms] */
  pollMs?: number;
  log?: Logger;
}

/** The KV key of the owner record. */
export const OWNER_KEY = 'chain';

const Plan = v.picklist(['ours', 'created', 'adopted', 'switched']);
const OwnerRecordSchema = v.variant('state', [
  v.object({ state: v.literal('ready'), chain: v.string() }),
  v.object({ state: v.literal('switching'), chain: v.string(), claim: v.string(), previous: v.nullable(v.string()), plan: v.optional(Plan) }),
]);
type PlanKind = v.InferOutput<typeof Plan>;
type OwnerRecord = v.InferOutput<typeof OwnerRecordSchema>;
type Switching = Extract<OwnerRecord, { state: 'switching' }>;

/** The record as read: null when there is none; `unknown` when it is not one this code wrote (treated as another chain's). */
interface ReadRecord {
  revision: number;
  record: OwnerRecord | 'unknown' | null;
}

async function readRecord(kv: KV): Promise<ReadRecord> {
  const e = await kv.get(OWNER_KEY);
  if (!e || e.operation !== 'PUT') return { revision: e?.revision ?? 0, record: null };
  try {
    return { revision: e.revision, record: v.parse(OwnerRecordSchema, e.json()) };
  } catch {
    return { revision: e.revision, record: 'unknown' };
  }
}

/** The chain the record names (ready or switching to it); null when there is none. */
export async function recordedOwner(kv: KV): Promise<string | null> {
  const { record } = await readRecord(kv);
  return record === null || record === 'unknown' ? null : record.chain;
}

/** Writes `record` if the key is still at `revision` (0: absent); the new revision, or null when another gateway wrote first. */
async function compareAndSet(kv: KV, revision: number, record: OwnerRecord): Promise<number | null> {
  try {
    return revision === 0 ? await kv.create(OWNER_KEY, JSON.stringify(record)) : await kv.update(OWNER_KEY, JSON.stringify(record), revision);
  } catch (err) {
    if (
      err instanceof JetStreamApiError &&
      (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
    )
      return null;
    throw err;
  }
}

const MAX_RECREATES = 5;
const DEFAULT_STALE_AFTER_MS = 30_000;

/**
 * Makes the stream this chain's: `keep` sets the owner in the description of the stream found
 * (creating it when missing); otherwise a stream described as another's (or as nobody's) is
 * deleted and created again. A stream described as this chain's is never deleted, and nothing is
 * deleted after `deadline` (false: renew the claim first).
 */
async function makeOurs(d: ClaimDeps, keep: boolean, deadline: number): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const info = await streamInfo(d.jsm, d.spec.name);
    const owner = info ? ownerOfStream(info) : null;
    if (info && owner === d.spec.chain) return true;
    if (info && owner === null && keep) {
      await d.jsm.streams.update(d.spec.name, { description: descriptionOf(d.spec.chain) });
      return true;
    }
    if (attempt > MAX_RECREATES)
      throw new Error(`event stream ${d.spec.name} is recreated by someone else as fast as this gateway recreates it (owner now: ${owner ?? 'none'})`);
    if (performance.now() > deadline) return false;
    if (info) await d.jsm.streams.delete(d.spec.name);
    await ensureStream(d.jsm, d.spec); // someone may recreate it in between: checked on the next round
  }
}

/** What a fresh claim should do with the stream as found. */
async function planFor(d: ClaimDeps, info: StreamInfo | null, previous: string | null): Promise<{ plan: PlanKind; previous: string | null }> {
  const described = info ? ownerOfStream(info) : null;
  if (info && described === d.spec.chain) return { plan: 'ours', previous: null };
  if (info && described !== null) return { plan: 'switched', previous: described };
  if (!info) return { plan: previous === null ? 'created' : 'switched', previous };
  // made without an owner: an older version's stream (or a read-only tool's); kept only when
  // nobody else claimed it before and its relayed history is this gateway's own
  if (previous === null && (await d.adoptUnowned())) return { plan: 'adopted', previous: null };
  return { plan: 'switched', previous };
}

/** Carries out a claim held at `revision`; null when another gateway took the claim meanwhile. */
async function carryOut(d: ClaimDeps, revision: number, held: Switching): Promise<Ownership | null> {
  let record = held;
  if (!record.plan) {
    const { plan, previous } = await planFor(d, await streamInfo(d.jsm, d.spec.name), record.previous);
    record = { ...record, plan, previous };
  }
  // renewed just before acting: a waiter's staleness clock restarts here, so none takes over mid-delete
  const renewed = await compareAndSet(d.kv, revision, record);
  if (renewed === null) return null;
  const plan = record.plan ?? 'switched';
  const deadline = performance.now() + (d.staleAfterMs ?? DEFAULT_STALE_AFTER_MS) / 2;
  if (!(await makeOurs(d, plan === 'ours' || plan === 'adopted', deadline))) return null; // too slow: the next round renews the claim
  if (plan === 'created' || plan === 'switched') await d.resetRelayCursor();
  if ((await compareAndSet(d.kv, renewed, { state: 'ready', chain: d.spec.chain })) === null) return null;
  return plan === 'switched' ? { kind: 'switched', previous: record.previous } : { kind: plan };
}

/**
 * Opens the stream as this chain's (see the file comment): resolves once the record says it is
 * `ready` for `spec.chain`, with what was found and done. Only the gateway whose claim wins
 * recreates the stream; the others of its chain wait for it.
 */
export async function claimEventStream(d: ClaimDeps): Promise<Ownership> {
  const staleAfterMs = d.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const pollMs = d.pollMs ?? 100;
  let watched: { revision: number; since: number } | null = null;
  let waitingLogged = false;
  for (;;) {
    const { revision, record } = await readRecord(d.kv);
    const ourChain = record !== null && record !== 'unknown' && record.chain === d.spec.chain;
    let previous: string | null = record === null || record === 'unknown' ? null : record.chain;

    if (ourChain && record.state === 'ready') {
      const info = await ensureStream(d.jsm, d.spec); // deleted by an operator: recreated, a new epoch
      const described = ownerOfStream(info);
      if (described === d.spec.chain) return { kind: 'ours' };
      if (described === null) {
        // recreated by a read-only tool or an older version after a deletion: it is ours
        await d.jsm.streams.update(d.spec.name, { description: descriptionOf(d.spec.chain) });
        return { kind: 'ours' };
      }
      previous = described; // described as another chain's behind the record's back: claim it
    } else if (ourChain && record.state === 'switching') {
      if (record.claim === d.claim) {
        const done = await carryOut(d, revision, record); // a retry of this opener: its own claim
        if (done) return done;
        continue;
      }
      const seen: { revision: number; since: number } = watched !== null && watched.revision === revision ? watched : { revision, since: performance.now() };
      watched = seen;
      if (performance.now() - seen.since < staleAfterMs) {
        if (!waitingLogged)
          d.log?.info({ stream: d.spec.name, chain: d.spec.chain }, 'another gateway of this chain is taking the event stream over; waiting for it');
        waitingLogged = true;
        await sleep(pollMs);
        continue;
      }
      d.log?.warn({ stream: d.spec.name, staleAfterMs }, 'the gateway taking the event stream over stopped half way; carrying its plan out');
      const taken = await compareAndSet(d.kv, revision, { ...record, claim: d.claim });
      if (taken !== null) {
        const done = await carryOut(d, taken, { ...record, claim: d.claim });
        if (done) return done;
      }
      continue;
    }

    // no record, another chain's (ready or switching), or one described otherwise: claim it
    const claim: Switching = { state: 'switching', chain: d.spec.chain, claim: d.claim, previous };
    const taken = await compareAndSet(d.kv, revision, claim);
    if (taken === null) continue; // another gateway wrote first: read what it wrote
    const done = await carryOut(d, taken, claim);
    if (done) return done;
  }
}

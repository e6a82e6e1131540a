/**
 * Port: the transactions the gateway sent and has not seen land yet (docs/architecture.md#landing-transactions).
 * An intent is written before its bytes are first sent and removed once it landed, failed, or can
 * no longer land; a gateway that restarts finds the ones it was landing, sends the same bytes
 * again until their blockhash expires, and signs no second placement for the same bettor while
 * one can still land.
 * Adapters: `memory.ts`, `file.ts` (a line journal in DATA_DIR, the embedded default), `redis.ts` (a hash).
 */
import * as v from 'valibot';

/** One transaction being landed. */
export interface PendingIntent {
  /** what it is for, one intent per key at a time (`place_bet:<bettor>`) */
  key: string;
  /** the instruction(s), for logs (`place_bet`) */
  what: string;
  signature: string;
  /** the signed transaction, base64 */
  wire: string;
  /** the last block height at which it can land */
  lastValidBlockHeight: number;
  /** unix ms of its first signing */
  since: number;
  /** the landing engine (one per gateway process) that signed it; absent in records of older versions */
  owner?: string;
}

export const PendingIntentSchema = v.object({
  key: v.string(),
  what: v.string(),
  signature: v.string(),
  wire: v.string(),
  lastValidBlockHeight: v.number(),
  since: v.number(),
  owner: v.optional(v.string()),
});

/**
 * A record older than this can no longer land (a blockhash lives about a minute, and an intent is
 * signed at most three times), so another engine may take its key over.
 */
export const ABANDONED_AFTER_MS = 10 * 60_000;

/**
 * Whether `intent` may be recorded over `held`, the key's record now: the key is free, or held by
 * the same engine (a re-signing), or held by a record that can no longer land (the chain's block
 * height `heightNow`, when known, is past its `lastValidBlockHeight`, or it is older than
 * ABANDONED_AFTER_MS). Otherwise another engine is landing a transaction for the same key and its
 * record stays.
 */
export function mayRecord(held: PendingIntent | undefined, intent: PendingIntent, heightNow?: number, now = Date.now()): boolean {
  if (!held) return true;
  if (held.owner !== undefined && held.owner === intent.owner) return true;
  return (heightNow !== undefined && held.lastValidBlockHeight < heightNow) || held.since < now - ABANDONED_AFTER_MS;
}

export interface IntentStore {
  /**
   * Records `intent` unless another engine's intent that can still land holds its key
   * (`mayRecord`; `heightNow` is the chain's block height, when the caller knows it), replacing
   * the key's earlier record otherwise (a re-signing). Resolves once durable, with whether it was
   * recorded: true means no other engine is landing anything under this key.
   */
  put(intent: PendingIntent, heightNow?: number): Promise<boolean>;
  /** Removes the key's intent if it is still the one signed as `signature` (a later signing stays). */
  remove(key: string, signature: string): Promise<void>;
  /** Every intent recorded, in no particular order. */
  list(): Promise<PendingIntent[]>;
}

/** A recorded intent read back; null when damaged (skipped). */
export function intentOf(raw: unknown): PendingIntent | null {
  const parsed = v.safeParse(PendingIntentSchema, raw);
  return parsed.success ? parsed.output : null;
}

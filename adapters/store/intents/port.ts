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
}

export const PendingIntentSchema = v.object({
  key: v.string(),
  what: v.string(),
  signature: v.string(),
  wire: v.string(),
  lastValidBlockHeight: v.number(),
  since: v.number(),
});

export interface IntentStore {
  /** Records `intent`, replacing the key's earlier one (a re-signing). Resolves once durable. */
  put(intent: PendingIntent): Promise<void>;
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

/**
 * Port: the gateway's bet history (settled and open bets with their settlement evidence), kept
 * for `GW_HISTORY_DAYS` and read by `GET /api/bets/:id`, `GET /api/bets?address=` and
 * `GET /api/leaderboard`. One record per bet id, replaced whole by `put`; records are validated
 * with `BetRecordSchema` when read back, so a damaged one is skipped, never served.
 * Adapters: `memory.ts`, `redis.ts`, and the embedded journal (`../file/gateway-journal.ts`).
 *
 * @example
 *   await history.put(record);
 *   const page = await history.pageOf(address, 20);          // newest first
 *   const older = await history.pageOf(address, 20, page.at(-1)?.id);
 */
import * as v from 'valibot';
import { SideSchema } from '../../../kernel/schemas.ts';

const DecimalId = v.pipe(v.string(), v.regex(/^\d{1,20}$/));
const Units = v.pipe(v.string(), v.regex(/^-?\d+$/));
const PriceE8 = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const UnixMs = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** A tick as evidence: price x 1e8 and its unix ms timestamp. */
export const EvidenceTickSchema = v.object({ price: PriceE8, ts: UnixMs });
export type EvidenceTick = v.InferOutput<typeof EvidenceTickSchema>;

/** A tick in the signed form its price signer published (docs/decisions.md#signed-prices): anyone holding the signer's key checks it. */
export const SignedEvidenceTickSchema = v.object({
  price: PriceE8,
  ts: UnixMs,
  /** the signer's sequence number of this tick */
  seq: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  /** Ed25519 signature over the tick message, base64 */
  signature: v.string(),
  /** the signer's public key, base58 */
  signer: v.string(),
});
export type SignedEvidenceTick = v.InferOutput<typeof SignedEvidenceTickSchema>;

/**
 * The signed ticks that decided a bet's prices: the entry tick, and the pair n, n+1 of one signer
 * that straddles the expiry (the exit price is n's). Null where the gateway holds none (an unsigned
 * feed, a refund at the entry price, a tick no longer in its history).
 */
export const SignedEvidenceSchema = v.object({
  entry: v.nullable(SignedEvidenceTickSchema),
  exit: v.nullable(v.tuple([SignedEvidenceTickSchema, SignedEvidenceTickSchema])),
});
export type SignedEvidence = v.InferOutput<typeof SignedEvidenceSchema>;

/** How the exit price was chosen (docs/decisions.md#entry-and-exit-prices). */
export const EXIT_RULES = ['last_tick_at_or_before_expiry', 'refund_no_price', 'chain'] as const;

/** Where the entry price came from: the tick it was taken from (ts null when that tick is no longer known). */
export const EntryEvidenceSchema = v.object({ price: PriceE8, ts: v.nullable(UnixMs), source: v.string() });
export type EntryEvidence = v.InferOutput<typeof EntryEvidenceSchema>;
/** Where the exit price came from, and by which rule; `reason` says why in words. */
export const ExitEvidenceSchema = v.object({
  price: PriceE8,
  ts: v.nullable(UnixMs),
  source: v.string(),
  rule: v.picklist(EXIT_RULES),
  reason: v.string(),
});

export type ExitEvidence = v.InferOutput<typeof ExitEvidenceSchema>;

/** One stored bet. */
export const BetRecordSchema = v.object({
  id: DecimalId,
  bettor: v.string(),
  side: SideSchema,
  amountUnits: Units,
  entryPrice: PriceE8,
  /** 0 while open */
  exitPrice: PriceE8,
  status: v.picklist([0, 1, 2, 3]),
  /** unix seconds */
  expireTime: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  /** unix ms when the gateway recorded the bet opening (pruning by age) */
  openedAt: UnixMs,
  /** unix ms when it recorded the close; null while open */
  closedAt: v.nullable(UnixMs),
  /** the bettor's net result in token base units once closed (payout - stake; 0 for a refund); null while open */
  netUnits: v.nullable(Units),
  entry: EntryEvidenceSchema,
  exit: v.nullable(ExitEvidenceSchema),
  ticks: v.array(EvidenceTickSchema),
  /** the signed ticks (absent in records written before signed evidence was kept) */
  signed: v.optional(SignedEvidenceSchema),
  placeTx: v.nullable(v.string()),
  closeTx: v.nullable(v.string()),
  /** Profile B replay chain: the tied bet this one replaced, and the bet that replaced this one */
  prevId: v.nullable(DecimalId),
  nextId: v.nullable(DecimalId),
});
export type BetRecord = v.InferOutput<typeof BetRecordSchema>;

/** A stored record read back: the record, or null when the text is not a valid record. */
export function parseRecord(json: string | null | undefined): BetRecord | null {
  if (json == null) return null;
  try {
    const parsed = v.safeParse(BetRecordSchema, JSON.parse(json));
    return parsed.success ? parsed.output : null;
  } catch {
    return null;
  }
}

/** Storage of bet records. */
export interface BetHistoryStore {
  /** Stores (or replaces) the record of `record.id`. */
  put(record: BetRecord): Promise<void>;
  /** The record of `id`, or null. */
  get(id: string): Promise<BetRecord | null>;
  /** Up to `limit` records of `bettor`, highest id first, only ids below `beforeId` when given. */
  pageOf(bettor: string, limit: number, beforeId?: string): Promise<BetRecord[]>;
  /** Every closed record with `closedAt >= sinceMs` (leaderboard). */
  closedSince(sinceMs: number): Promise<BetRecord[]>;
  /** Deletes records opened before `cutoffMs`; returns how many. */
  pruneOpenedBefore(cutoffMs: number): Promise<number>;
  close(): Promise<void>;
}

/** Orders decimal ids numerically, highest first. */
export const byIdDescending = (a: { id: string }, b: { id: string }): number => {
  const x = BigInt(a.id);
  const y = BigInt(b.id);
  return x === y ? 0 : x > y ? -1 : 1;
};

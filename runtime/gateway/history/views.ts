/**
 * Response shapes of the bet history routes, declared once as valibot schemas below the server
 * (like the events): `GET /api/bets/:id` (a bet with its settlement evidence),
 * `GET /api/bets?address=` (`{items, nextCursor}`) and `GET /api/leaderboard` (bettors ranked by
 * net result, net in token base units as a signed decimal string).
 *
 * @example
 *   const view = betHistoryView(record);
 *   const board = leaderboard(await store.closedSince(Date.now() - 86_400_000));
 */
import * as v from 'valibot';
import {
  EntryEvidenceSchema,
  EvidenceTickSchema,
  ExitEvidenceSchema,
  SignedEvidenceTickSchema,
  type BetRecord,
} from '../../../adapters/store/bet-history/port.ts';

import { formatHuman } from '../views/units.ts';
import { STATUS_NAMES } from '../../../kernel/domain.ts';
import { BetStatusSchema, SideSchema } from '../../../kernel/schemas.ts';

const DecimalId = v.pipe(v.string(), v.regex(/^\d+$/));
const SignedUnits = v.pipe(v.string(), v.regex(/^-?\d+$/));
const Count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

const SignedTick = v.strictObject(SignedEvidenceTickSchema.entries);

/** A bet of the history with its settlement evidence. */
export const BetHistoryViewSchema = v.strictObject({
  id: DecimalId,
  bettor: v.string(),
  side: SideSchema,
  amountUnits: DecimalId,
  /** price x 1e8 */
  entryPrice: Count,
  /** price x 1e8; 0 while open */
  exitPrice: Count,
  status: BetStatusSchema,
  statusName: v.picklist(STATUS_NAMES),
  /** unix seconds */
  expireTime: Count,
  /** net result in token base units once settled (payout - stake; 0 for a refund), null while open */
  netUnits: v.nullable(SignedUnits),
  /** unix ms the gateway recorded the close; null while open */
  closedAt: v.nullable(Count),
  evidence: v.strictObject({
    entry: v.strictObject(EntryEvidenceSchema.entries),
    exit: v.nullable(v.strictObject(ExitEvidenceSchema.entries)),
    ticks: v.array(v.strictObject(EvidenceTickSchema.entries)),
    /** the signed ticks that decided the prices, for checking with the price signer's key (null: none held) */
    signed: v.strictObject({
      entry: v.nullable(SignedTick),
      exit: v.nullable(v.tuple([SignedTick, SignedTick])),
    }),
    placeTx: v.nullable(v.string()),
    closeTx: v.nullable(v.string()),
    prevId: v.nullable(DecimalId),
    nextId: v.nullable(DecimalId),
  }),
});
export type BetHistoryView = v.InferOutput<typeof BetHistoryViewSchema>;

/** A page of a bettor's bets, newest first; `nextCursor` null at the end. */
export const BetPageSchema = v.strictObject({ items: v.array(BetHistoryViewSchema), nextCursor: v.nullable(v.string()) });
export type BetPage = v.InferOutput<typeof BetPageSchema>;

/** One row of the leaderboard. */
export const LeaderboardRowSchema = v.strictObject({
  rank: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  address: v.string(),
  /** net result in token base units, signed decimal string */
  net: SignedUnits,
  netHuman: v.string(),
  bets: Count,
  wins: Count,
  losses: Count,
  refunds: Count,
  /** stakes in token base units */
  volumeUnits: DecimalId,
});
/** Bettors ranked by net result, highest first. */
export const LeaderboardSchema = v.array(LeaderboardRowSchema);
export type Leaderboard = v.InferOutput<typeof LeaderboardSchema>;

/** The view of a stored record. */
export function betHistoryView(r: BetRecord): BetHistoryView {
  return {
    id: r.id,
    bettor: r.bettor,
    side: r.side,
    amountUnits: r.amountUnits,
    entryPrice: r.entryPrice,
    exitPrice: r.exitPrice,
    status: r.status,
    statusName: STATUS_NAMES[r.status],
    expireTime: r.expireTime,
    netUnits: r.netUnits,
    closedAt: r.closedAt,
    evidence: {
      entry: r.entry,
      exit: r.exit,
      ticks: r.ticks,
      signed: r.signed ?? { entry: null, exit: null },
      placeTx: r.placeTx,
      closeTx: r.closeTx,
      prevId: r.prevId,
      nextId: r.nextId,
    },
  };
}

/** Ranks bettors of settled records by net result (ties: more bets first, then address). */
export function leaderboard(records: readonly BetRecord[]): Leaderboard {
  const rows = new Map<string, { net: bigint; bets: number; wins: number; losses: number; refunds: number; volume: bigint }>();
  for (const r of records) {
    if (r.status === 0 || r.netUnits === null) continue;
    const row = rows.get(r.bettor) ?? { net: 0n, bets: 0, wins: 0, losses: 0, refunds: 0, volume: 0n };
    row.net += BigInt(r.netUnits);
    row.bets++;
    row.volume += BigInt(r.amountUnits);
    if (r.status === 1) row.wins++;
    else if (r.status === 2) row.losses++;
    else row.refunds++;
    rows.set(r.bettor, row);
  }
  return [...rows.entries()]
    .sort(([a, x], [b, y]) => (x.net !== y.net ? (x.net > y.net ? -1 : 1) : y.bets - x.bets || a.localeCompare(b)))
    .map(([address, row], i) => ({
      rank: i + 1,
      address,
      net: row.net.toString(),
      netHuman: row.net < 0n ? `-${formatHuman(-row.net)}` : formatHuman(row.net),
      bets: row.bets,
      wins: row.wins,
      losses: row.losses,
      refunds: row.refunds,
      volumeUnits: row.volume.toString(),
    }));
}

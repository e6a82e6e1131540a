/**
 * Wire formats of the bet history routes: the path and query parameters, parsed with valibot
 * (every failure is HttpError 400 `{error}`), and the response schemas the runtime declares
 * (`runtime/gateway/history/views.ts`), re-exported for the server, tests and the OpenAPI document.
 *
 * @example
 *   const { address, limit, cursor } = parseBetPageQuery(req.query); // throws HttpError(400, {error})
 */
import * as v from 'valibot';
import { HttpError } from '../http/reply.ts';
import { base58Address } from '../../kernel/schemas.ts';

export { BetHistoryViewSchema, BetPageSchema, LeaderboardSchema, type BetPage, type Leaderboard } from '../../runtime/gateway/history/views.ts';

/** Most bets on one page of `GET /api/bets`. */
export const MAX_PAGE_LIMIT = 100;
/** Bets on a page when `limit` is not given. */
export const DEFAULT_PAGE_LIMIT = 20;

const U64_MAX = 18_446_744_073_709_551_615n;
const BetIdText = v.pipe(
  v.string(),
  // one check: valibot runs every action of a pipe, so the range test must not see a non-number
  v.check((s) => /^(0|[1-9]\d{0,19})$/.test(s) && BigInt(s) <= U64_MAX, 'must be a decimal bet id (u64)'),
);
const Address = base58Address();

/** Path parameter `:id` of `GET /api/bets/:id`: a decimal u64. */
export const BetIdParamSchema = BetIdText;

/** Query of `GET /api/bets`: `address` (required), `limit` 1..100 (20), `cursor` (the `nextCursor` of the page before). */
export const BetPageQuerySchema = v.object({
  address: Address,
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[1-9]\d{0,2}$/, `must be an integer 1..${MAX_PAGE_LIMIT}`),
      v.transform(Number),
      v.maxValue(MAX_PAGE_LIMIT, `must be an integer 1..${MAX_PAGE_LIMIT}`),
    ),
    String(DEFAULT_PAGE_LIMIT),
  ),
  cursor: v.optional(BetIdText),
});

/** Query of `GET /api/leaderboard`: `window` as `<n>h` or `<n>d` (default 24h), at most the history's retention. */
export const LeaderboardQuerySchema = v.object({
  window: v.optional(v.pipe(v.string(), v.regex(/^[1-9]\d{0,3}[hd]$/, 'must be like 24h or 7d')), '24h'),
});

const firstIssue = (issues: readonly v.BaseIssue<unknown>[]): string => {
  const issue = issues[0];
  const key = issue?.path?.map((p) => String(p.key)).join('.');
  return key ? `${key} ${issue?.message ?? 'is invalid'}` : (issue?.message ?? 'invalid request');
};

/** The query parameters as a plain record (first value of each name). */
const queryRecord = (query: URLSearchParams): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, val] of query) if (!(k in out)) out[k] = val;
  return out;
};

/** `:id` of `GET /api/bets/:id`, or 400. */
export function parseBetId(raw: string | undefined): string {
  const r = v.safeParse(BetIdParamSchema, raw ?? '');
  if (!r.success) throw new HttpError(400, { error: `bet id ${firstIssue(r.issues)}` });
  return r.output;
}

/** Query of `GET /api/bets`, or 400. */
export function parseBetPageQuery(query: URLSearchParams): { address: string; limit: number; cursor: string | undefined } {
  const r = v.safeParse(BetPageQuerySchema, queryRecord(query));
  if (!r.success) throw new HttpError(400, { error: firstIssue(r.issues) });
  return { address: r.output.address, limit: r.output.limit, cursor: r.output.cursor };
}

/** `window` of `GET /api/leaderboard` in ms, or 400 (also past `maxDays`). */
export function parseLeaderboardWindow(query: URLSearchParams, maxDays: number): { window: string; ms: number } {
  const r = v.safeParse(LeaderboardQuerySchema, queryRecord(query));
  if (!r.success) throw new HttpError(400, { error: firstIssue(r.issues) });
  const w = r.output.window;
  const n = Number(w.slice(0, -1));
  const ms = n * (w.endsWith('d') ? 86_400_000 : 3_600_000);
  if (ms > maxDays * 86_400_000) throw new HttpError(400, { error: `window must be at most ${maxDays}d (the history is kept ${maxDays} days)` });
  return { window: w, ms };
}

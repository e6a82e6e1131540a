/**
 * Bet history routes: `GET /api/bets/:id` (a bet with its settlement evidence; 404 unknown,
 * 400 malformed), `GET /api/bets?address=&limit=&cursor=` (a bettor's bets newest first) and
 * `GET /api/leaderboard?window=24h` (bettors by net result).
 */
import type { BetHistoryStore } from '../../adapters/store/bet-history/port.ts';
import { betHistoryView, leaderboard } from '../../runtime/gateway/history/views.ts';
import { HttpError } from '../http/reply.ts';
import type { GatewayRouter } from './router.ts';
import { betRoute, betsRoute, leaderboardRoute } from '../openapi/gateway.ts';
import { parseBetId, parseBetPageQuery, parseLeaderboardWindow, type BetPage, type Leaderboard } from './wire-history.ts';
import { answering } from './answers.ts';

/** What the history routes read. */
export interface HistoryApi {
  store: BetHistoryStore;
  /** GW_HISTORY_DAYS: the longest leaderboard window */
  retentionDays: number;
  /** unix ms */
  now(): number;
}

/** Registers the history routes on `router`. */
export function registerHistoryRoutes(router: GatewayRouter, api: HistoryApi): void {
  router.get(betRoute, ({ params }) =>
    answering(async () => {
      const id = parseBetId(params.id);
      const record = await api.store.get(id);
      if (!record) throw new HttpError(404, { error: `no bet ${id} in the history (kept ${api.retentionDays} days)` });
      return betHistoryView(record);
    }),
  );

  router.get(betsRoute, ({ query }) =>
    answering(async (): Promise<BetPage> => {
      const { address, limit, cursor } = parseBetPageQuery(query);
      const found = await api.store.pageOf(address, limit + 1, cursor);
      const items = found.slice(0, limit).map(betHistoryView);
      return { items, nextCursor: found.length > limit ? (items.at(-1)?.id ?? null) : null };
    }),
  );

  router.get(leaderboardRoute, ({ query }) =>
    answering(async (): Promise<Leaderboard> => {
      const { ms } = parseLeaderboardWindow(query, api.retentionDays);
      return leaderboard(await api.store.closedSince(api.now() - ms));
    }),
  );
}

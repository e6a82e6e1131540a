/* What place_bet and close_bet require of their ticks once signed prices are on (see prices.h,
 * docs/decisions.md#signed-prices). */
#include "errors.h"
#include "prices.h"

u64 check_entry_tick(const SolAccountInfo *sysvar, TickRef ref, PriceRules *rules, i64 now, u64 entry_price) {
  VerifiedTick tick;
  u64 err = read_verified_tick(sysvar, ref, rules, now, &tick);
  if (err) return err;
#if !(SKIP_CHECKS & SKIP_PRICE_MATCH)
  if (tick.price != entry_price) return fail(ERR_PRICE_TICK_MISMATCH);
#endif
  i64 now_ms = now * 1000;
#if !(SKIP_CHECKS & SKIP_ENTRY_AGE)
  /* the slot's clock has whole seconds: a tick up to 1 s ahead of it is not from the future */
  if (tick.ts_ms < now_ms - (i64)rules->max_entry_age_ms || tick.ts_ms > now_ms + 1000 + (i64)rules->max_entry_age_ms)
    return fail(ERR_PRICE_TICK_TOO_OLD);
#else
  (void)now_ms;
#endif
#if !(SKIP_CHECKS & SKIP_ENTRY_REPLAY)
  /* entry ticks go back at most ENTRY_SEQ_SLACK ticks behind the newest a bet already opened at */
  u64 newest = tick.trusted->last_entry_seq;
  if (newest > ENTRY_SEQ_SLACK && tick.seq < newest - ENTRY_SEQ_SLACK) return fail(ERR_PRICE_TICK_REPLAYED);
#endif
  if (tick.seq > tick.trusted->last_entry_seq) tick.trusted->last_entry_seq = tick.seq;
  return 0;
}

u64 check_exit_ticks(const SolAccountInfo *sysvar, PriceRules *rules, const ExitTicks *q) {
  VerifiedTick n, after;
  u64 err = read_verified_tick(sysvar, q->first, rules, q->now, &n);
  if (err) return err;
  if ((err = read_verified_tick(sysvar, q->next, rules, q->now, &after))) return err;
#if !(SKIP_CHECKS & SKIP_SAME_SIGNER)
  if (!key_eq(n.signer, after.signer)) return fail(ERR_PRICE_TICKS_NOT_CONSECUTIVE);
#endif
#if !(SKIP_CHECKS & SKIP_CONSECUTIVE)
  if (n.seq == U64_MAX || after.seq != n.seq + 1) return fail(ERR_PRICE_TICKS_NOT_CONSECUTIVE);
#endif
  i64 expire_ms = q->expire_time * 1000;
#if !(SKIP_CHECKS & SKIP_STRADDLE)
  /* tick n is the last at or before expiry: the project's exit rule, with no choice left */
  if (!(n.ts_ms <= expire_ms && expire_ms < after.ts_ms)) return fail(ERR_NOT_LAST_TICK_BEFORE_EXPIRY);
#endif
#if !(SKIP_CHECKS & SKIP_STALE)
  if (expire_ms - n.ts_ms > MAX_EXIT_TICK_AGE_MS) return fail(ERR_PRICE_TICK_STALE);
#else
  (void)expire_ms;
#endif
#if !(SKIP_CHECKS & SKIP_PRICE_MATCH)
  if (n.price != q->exit_price) return fail(ERR_PRICE_TICK_MISMATCH);
#endif
  return 0;
}

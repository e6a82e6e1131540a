/**
 * A ledger store that announces what it committed (`events.ts`): after a commit or an account
 * creation succeeds, its fills and journal entries go to `publish`. A failed publish is logged
 * and never fails the request: the ledger is the truth.
 *
 * @example
 *   const store = publishingStore(createRedisExchangeStore(url), (e) => nc.publish(exchangeSubject(e), JSON.stringify(e)), log);
 */
import type { ExchangeStore } from '../../adapters/store/exchange/port.ts';
import type { Logger } from '../../kernel/log.ts';
import { journalEvents, ledgerEvents, type ExchangeEvent } from './events.ts';

/** Wraps `store`; every other method passes through. */
export function publishingStore(store: ExchangeStore, publish: (event: ExchangeEvent) => void, log: Logger): ExchangeStore {
  const announce = (events: ExchangeEvent[]) => {
    for (const e of events) {
      try {
        publish(e);
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : err, accountId: e.accountId, kind: e.kind }, 'exchange event not published');
      }
    }
  };
  return {
    ...store,
    createAccount: async (account, balances, opening, point) => {
      const out = await store.createAccount(account, balances, opening, point);
      if (out === 'created') announce(journalEvents(account.id, [opening]));
      return out;
    },
    commit: async (id, expectedVersion, change) => {
      const out = await store.commit(id, expectedVersion, change);
      if (out === 'committed') announce(ledgerEvents(id, change));
      return out;
    },
  };
}

/**
 * A ledger store that announces what it committed (`events.ts`). With an outbox (Redis: the
 * journal and a relay cursor, docs/operations.md#exchange-events-outbox) a commit or creation only
 * kicks the relay of its account (`relayedStore`), which publishes from the ledger; without one
 * (the embedded file) its fills and journal entries go to `publish` at once, best-effort
 * (`publishingStore`). A failed publish is logged and never fails the request: the ledger is the truth.
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

/** Wraps `store`; a committed change or a created account kicks `relay` for its account. */
export function relayedStore(store: ExchangeStore, relay: { kick(accountId: string): void }): ExchangeStore {
  return {
    ...store,
    createAccount: async (account, balances, opening, point) => {
      const out = await store.createAccount(account, balances, opening, point);
      if (out === 'created') relay.kick(account.id);
      return out;
    },
    commit: async (id, expectedVersion, change) => {
      const out = await store.commit(id, expectedVersion, change);
      if (out === 'committed') relay.kick(id);
      return out;
    },
  };
}

/**
 * The exchange's Prometheus metrics (`GET /actuator/prometheus` on the management port), in a
 * registry of its own with the `exchange_` prefix: orders by final status (or refusal code) and
 * their duration, idempotent replays, the age of each symbol's latest book, the round trips
 * to the Redis ledger, and whether Redis and NATS are reachable. No label carries an account or order id.
 *
 * @example
 *   const metrics = createExchangeMetrics();
 *   metrics.orderDone('FILLED', 0.004, false);
 *   feed.onBook((b) => metrics.bookArrived(b.symbol, b.ts));
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

import type { ExchangeStore } from '../../adapters/store/exchange/port.ts';
import { setDependencyGauge, type DependencyLinks } from '../dependency-links.ts';
import { LATENCY_BUCKETS, serviceRegistry } from '../metrics.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';

/** Metrics of one exchange. */
export interface ExchangeMetrics {
  registry: Registry;
  /** an order answered: FILLED, PARTIALLY_FILLED, or the refusal code; seconds it took; whether it replayed an Idempotency-Key */
  orderDone(status: string, seconds: number, replayed: boolean): void;
  /** a book arrived from the feed (ts: unix ms of its exchange event) */
  bookArrived(symbol: BookSymbol, ts: number): void;
  /** wraps a Redis ledger store so each call's round trip is measured */
  timedRedisStore(store: ExchangeStore): ExchangeStore;
}

/** Creates the exchange's registry and metrics; `now` is the clock of book ages; `dependencies` its Redis and NATS connections. */
export function createExchangeMetrics(now: () => number = Date.now, dependencies?: DependencyLinks): ExchangeMetrics {
  const registry = serviceRegistry();
  const registers = [registry];
  const orders = new Counter({
    name: 'exchange_orders_total',
    help: 'Market orders answered, by status (FILLED, PARTIALLY_FILLED, or the refusal code)',
    labelNames: ['status'],
    registers,
  });
  const orderSeconds = new Histogram({ name: 'exchange_order_seconds', help: 'Time to answer a market order', buckets: LATENCY_BUCKETS, registers });
  const replays = new Counter({
    name: 'exchange_idempotent_replays_total',
    help: 'Orders answered from an earlier result of the same Idempotency-Key (no trade)',
    registers,
  });
  const redisSeconds = new Histogram({
    name: 'exchange_redis_seconds',
    help: 'Round trips to the Redis ledger, by store operation',
    labelNames: ['operation'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const lastBook = new Map<BookSymbol, number>();
  new Gauge({
    name: 'exchange_book_age_seconds',
    help: "Age of each symbol's latest order book (now minus its ts)",
    labelNames: ['symbol'],
    registers,
    collect() {
      for (const symbol of BOOK_SYMBOLS) {
        const ts = lastBook.get(symbol);
        if (ts !== undefined) this.set({ symbol }, Math.max(0, (now() - ts) / 1000));
      }
    },
  });

  new Gauge({
    name: 'exchange_dependency_up',
    help: 'Whether each dependency is reachable now (1) or not (0), as its connections know it: redis, nats',
    labelNames: ['dependency'],
    registers,
    collect() {
      setDependencyGauge(this, dependencies);
    },
  });

  const timed = <A extends unknown[], R>(operation: string, call: (...args: A) => Promise<R>) => {
    // the labels made once per operation, the clock read twice: no timer closure per call (a commit per order)
    const labels = { operation };
    return async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        return await call(...args);
      } finally {
        redisSeconds.observe(labels, (performance.now() - started) / 1000);
      }
    };
  };

  return {
    registry,
    orderDone(status, seconds, replayed) {
      orders.inc({ status });
      orderSeconds.observe(seconds);
      if (replayed) replays.inc();
    },
    bookArrived(symbol, ts) {
      if ((lastBook.get(symbol) ?? -Infinity) <= ts) lastBook.set(symbol, ts);
    },
    timedRedisStore(store) {
      return {
        ...store,
        createAccount: timed('createAccount', store.createAccount.bind(store)),
        load: timed('load', store.load.bind(store)),
        commit: timed('commit', store.commit.bind(store)),
        listAccountIds: timed('listAccountIds', store.listAccountIds.bind(store)),
        orders: timed('orders', store.orders.bind(store)),
        equity: timed('equity', store.equity.bind(store)),
        journal: timed('journal', store.journal.bind(store)),
        readOrderState: timed('readOrderState', store.readOrderState.bind(store)),
        deleteAccount: timed('deleteAccount', store.deleteAccount.bind(store)),
        ping: timed('ping', store.ping.bind(store)),
      };
    },
  };
}

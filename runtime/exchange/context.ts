/** What the exchange runtime works with: the ledger store, the live books, a clock, a logger. */
import type { ExchangeStore } from '../../adapters/store/exchange/port.ts';
import type { Logger } from '../../kernel/log.ts';
import type { BookCache } from './book-cache.ts';

/** Dependencies of every exchange operation. */
export interface ExchangeContext {
  store: ExchangeStore;
  books: BookCache;
  now: () => Date;
  log: Logger;
}

/**
 * Publishes market data on NATS in the wire format of `messages.ts` (docs/operations.md#market-data-on-nats).
 * Used by `bin/feed.ts` and by tests of the services that consume these subjects.
 *
 * @example
 *   publishPrice(nc, { symbol: 'solusdt', price: '150.12', ts: Date.now() });
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { bookSubject, encodeBook, encodePriceTick, PRICE_SUBJECT } from './messages.ts';
import type { BookSnapshot, PriceTick } from './port.ts';

/** Publishes one tick on `market.price.solusdt`. */
export function publishPrice(nc: NatsConnection, tick: PriceTick): void {
  nc.publish(PRICE_SUBJECT, encodePriceTick(tick));
}

/** Publishes one book on `market.book.<SYMBOL>`. */
export function publishBook(nc: NatsConnection, book: BookSnapshot): void {
  nc.publish(bookSubject(book.symbol), encodeBook(book));
}

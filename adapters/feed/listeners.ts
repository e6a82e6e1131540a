/**
 * Fan-out of one feed's values to its listeners. A listener that throws is logged and the
 * others still run: a consumer's bug never stops the feed (docs/operations.md#market-data-on-nats).
 */
import type { Logger } from '../../kernel/log.ts';
import type { Unsubscribe } from './port.ts';

/** The listeners of one feed. */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  constructor(private readonly log: Logger) {}

  /** Adds a listener; the returned function removes it. */
  add(listener: (value: T) => void): Unsubscribe {
    this.set.add(listener);
    return () => void this.set.delete(listener);
  }

  /** Hands `value` to every listener. */
  emit(value: T): void {
    for (const listener of this.set) {
      try {
        listener(value);
      } catch (err) {
        this.log.error({ err }, 'feed listener threw; value still delivered to the others');
      }
    }
  }
}

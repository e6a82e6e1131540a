/**
 * A group commit for one event-loop turn: items added during the same turn are handed to `flush`
 * together once the turn ends (one round trip, one script, one fsync instead of one each), and
 * each caller gets its own item's result. `flush` answers one result per item, in order; when it
 * fails, every item of the batch fails with its error.
 *
 * @example
 *   const puts = new TurnBatch((records: Rec[]) => redis.putMany(records)); // resolves boolean[]
 *   const recorded = await puts.add(record);
 */
export class TurnBatch<T, R> {
  private pending: Array<{ item: T; resolve: (r: R) => void; reject: (err: unknown) => void }> = [];

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    /** most items in one flush (a larger turn is flushed in several) */
    private readonly maxItems = 256,
  ) {}

  /** Adds `item` to this turn's batch; resolves with its own result. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.drain());
      this.pending.push({ item, resolve, reject });
    });
  }

  private drain(): void {
    const all = this.pending;
    this.pending = [];
    for (let at = 0; at < all.length; at += this.maxItems) {
      const batch = all.slice(at, at + this.maxItems);
      this.flush(batch.map((b) => b.item)).then(
        (results) => batch.forEach((b, i) => b.resolve(results[i] as R)),
        (err: unknown) => {
          for (const b of batch) b.reject(err);
        },
      );
    }
  }
}

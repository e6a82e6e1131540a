/**
 * The newest published events, as the JSON text that was published, oldest first
 * (docs/architecture.md#resumes-from-memory): a resuming socket whose `since` falls inside it is
 * served from here without a read of the event log, so a herd of reconnects after a restart costs
 * the log nothing. Seqs only go up; a seq the stream skipped is simply absent.
 *
 * @example
 *   const recent = new RecentEvents(20_000);
 *   recent.push(41, '{"type":"price",...,"seq":41}');
 *   const at = recent.positionAfter(40); // 0: the event of seq 41
 *   recent.textAt(at);
 */

/** A bounded ring of `(seq, text)`, oldest first. */
export class RecentEvents {
  private readonly seqs: Float64Array;
  private readonly texts: Array<string | undefined>;
  /** slot of the oldest event */
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`the resume ring needs a positive whole number of events, got ${capacity}`);
    this.seqs = new Float64Array(capacity);
    this.texts = new Array<string | undefined>(capacity);
  }

  /** Number of events held. */
  get size(): number {
    return this.count;
  }

  /** Seq of the oldest event held (undefined when empty). */
  get first(): number | undefined {
    return this.count === 0 ? undefined : this.seqAt(0);
  }

  /** Seq of the newest event held (undefined when empty). */
  get last(): number | undefined {
    return this.count === 0 ? undefined : this.seqAt(this.count - 1);
  }

  /** Adds the newest event; a seq not above the newest held is ignored (it is already here, or older than what is kept). */
  push(seq: number, text: string): void {
    if (this.count > 0 && seq <= (this.last as number)) return;
    if (this.count === this.capacity) {
      this.texts[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
      this.count--;
    }
    const slot = (this.head + this.count) % this.capacity;
    this.seqs[slot] = seq;
    this.texts[slot] = text;
    this.count++;
  }

  /** Drops everything (the log started over under another epoch). */
  clear(): void {
    this.texts.fill(undefined);
    this.head = 0;
    this.count = 0;
  }

  /**
   * Position (0 = oldest) of the first event with seq > `since`; `size` when none is newer; -1 when
   * events after `since` may exist that are no longer held (`since` is older than the oldest held
   * minus one, or nothing is held).
   */
  positionAfter(since: number): number {
    if (this.count === 0) return -1;
    const first = this.seqAt(0);
    if (since < first - 1) return -1;
    // seqs are usually consecutive: the position is the distance from the oldest
    const guess = since + 1 - first;
    if (guess < this.count && this.seqAt(guess) === since + 1 && (guess === 0 || this.seqAt(guess - 1) <= since)) return guess;
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqAt(mid) <= since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Seq of the event at `position` (0 = oldest). */
  seqAt(position: number): number {
    return this.seqs[(this.head + position) % this.capacity] as number;
  }

  /** Text of the event at `position` (0 = oldest). */
  textAt(position: number): string {
    return this.texts[(this.head + position) % this.capacity] as string;
  }
}

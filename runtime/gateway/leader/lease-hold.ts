/**
 * Until when this node's leader lease surely holds, on the monotonic clock (docs/architecture.md#the-leader).
 * Made before anything that settles, handed to the leadership loop (which moves it on every
 * acquisition and renewal) and to every settlement write and run (which ask it right before
 * acting), so the parts that act and the part that knows need not know each other.
 *
 * @example
 *   const hold = new LeaseHold();
 *   chain.guardSettlement(() => hold.holds());
 *   startLeaseLeadership({ lease, role, log, hold });
 */
export class LeaseHold {
  /** monotonic ms until which the lease surely holds; Infinity for a node alone on its DATA_DIR */
  private until = 0;
  /** a newer leader used a higher fence than this node's: it gives its lease up at its next round */
  private staleFence = false;

  constructor(private readonly monotonic: () => number = () => performance.now()) {}

  /** Whether the lease surely holds now. */
  holds(): boolean {
    return this.monotonic() < this.until;
  }

  /** The lease was taken or renewed by a request sent at `askedAt` (monotonic ms) for `validMs`. */
  heldFrom(askedAt: number, validMs: number): void {
    this.until = askedAt + validMs;
  }

  /** The lease is gone (lost, released). */
  lost(): void {
    this.until = 0;
    this.staleFence = false;
  }

  /**
   * A newer leader used a higher fence than the one this node acts under: it acts no more at once,
   * and the leadership loop gives the lease up at its next round (renewing it would keep every
   * other node from leading while this one may not act).
   */
  stale(): void {
    this.until = 0;
    this.staleFence = true;
  }

  /** Whether `stale()` was said since the lease was last lost or taken. */
  isStale(): boolean {
    return this.staleFence;
  }

  /** A node alone on its DATA_DIR leads for good. */
  forever(): void {
    this.until = Infinity;
  }

  /** The monotonic clock it reads. */
  now(): number {
    return this.monotonic();
  }
}

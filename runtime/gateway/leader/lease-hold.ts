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

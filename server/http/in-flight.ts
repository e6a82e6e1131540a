/** Counts requests being answered, so a stop lets them finish before the stores close (docs/architecture.md#http-kit). */
export class InFlight {
  count = 0;
  private idle: Array<() => void> = [];

  enter(): void {
    this.count++;
  }

  leave(): void {
    if (--this.count === 0) for (const f of this.idle.splice(0)) f();
  }

  /** Resolves when no request is in flight, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

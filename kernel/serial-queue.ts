/**
 * Work run one at a time per key, in the order it was asked for, within this process: the next
 * work of a key starts once the previous one settled, whatever its outcome; work for a key with
 * nothing queued starts at once. A key whose last work settled leaves no entry behind.
 *
 * @example
 *   const placing = new SerialQueue();
 *   await placing.run(bettor, () => placeAtNextSeq(bettor)); // a second call for the bettor waits for the first
 */
export class SerialQueue {
  /** the end of the last work queued per key (never rejects) */
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` after every earlier work of `key` has settled; its result (a synchronous throw as a rejection). */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    const result = previous ? previous.then(work) : startNow(work);
    const settled: Promise<void> = result.then(
      () => this.forget(key, settled),
      () => this.forget(key, settled),
    );
    this.tails.set(key, settled);
    return result;
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.tails.size;
  }

  private forget(key: string, settled: Promise<void>): void {
    if (this.tails.get(key) === settled) this.tails.delete(key);
  }
}

/** `work()`, a synchronous throw as a rejection (as `then` would report it). */
function startNow<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (err) {
    return Promise.reject(err);
  }
}

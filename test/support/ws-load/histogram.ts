/**
 * A fixed histogram of milliseconds (1 ms buckets up to 60 s, one bucket above): a worker records
 * millions of latencies in the same 240 KB, ships only its non-empty buckets, and the coordinator
 * adds the workers' buckets up before taking percentiles, so they are exact to the millisecond.
 *
 * @example
 *   const h = new MsHistogram();
 *   h.record(12);
 *   const all = MsHistogram.from([a.sparse(), b.sparse()]);
 *   all.summary(); // { count, p50, p90, p99, max }
 */

/** Bucket count: 0..60 000 ms, then everything above in the last one. */
const TOP_MS = 60_000;

/** Non-empty buckets as `[ms, count, ms, count, ...]`. */
export type SparseHistogram = number[];

/** Percentiles in ms (null when nothing was recorded); `max` is capped at 60 001 (the overflow bucket). */
export interface Percentiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

/** Counts of whole milliseconds. */
export class MsHistogram {
  private readonly buckets = new Uint32Array(TOP_MS + 2);
  private total = 0;

  /** Adds the workers' histograms together. */
  static from(parts: readonly SparseHistogram[]): MsHistogram {
    const h = new MsHistogram();
    for (const part of parts) for (let i = 0; i + 1 < part.length; i += 2) h.add(part[i] as number, part[i + 1] as number);
    return h;
  }

  /** Records one value (negative counts as 0, fractions are floored). */
  record(ms: number): void {
    this.add(ms, 1);
  }

  private add(ms: number, n: number): void {
    const i = ms <= 0 ? 0 : ms > TOP_MS ? TOP_MS + 1 : Math.floor(ms);
    this.buckets[i] = (this.buckets[i] as number) + n;
    this.total += n;
  }

  /** How many values were recorded. */
  get count(): number {
    return this.total;
  }

  /** Forgets every value. */
  reset(): void {
    this.buckets.fill(0);
    this.total = 0;
  }

  /** The non-empty buckets, to send to the coordinator. */
  sparse(): SparseHistogram {
    const out: number[] = [];
    if (this.total === 0) return out;
    for (let i = 0; i < this.buckets.length; i++) if (this.buckets[i] !== 0) out.push(i, this.buckets[i] as number);
    return out;
  }

  /** The value below which `q` (0..1) of the values fall, or null when empty. */
  quantile(q: number): number | null {
    if (this.total === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i] as number;
      if (seen >= rank) return i;
    }
    return TOP_MS + 1;
  }

  /** p50, p90, p99 and max. */
  summary(): Percentiles {
    return { count: this.total, p50: this.quantile(0.5), p90: this.quantile(0.9), p99: this.quantile(0.99), max: this.quantile(1) };
  }
}

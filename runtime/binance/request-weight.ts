/**
 * Request weight per client address, as Binance counts it (docs/exchange-api.md#binance-limits):
 * each answered request adds its endpoint's weight to the address's count for the current UTC
 * minute; past the limit a request is refused with 429 until the minute ends.
 */

/** What a request's weight did to its address's count. */
export interface WeightUse {
  /** the weight used in this minute, this request included (X-MBX-USED-WEIGHT-1M) */
  used: number;
  /** whether the count is past the limit (a 429) */
  over: boolean;
  /** seconds until the minute ends (Retry-After of a 429) */
  retryAfterSeconds: number;
}

/** Fixed one-minute windows per address. */
export class RequestWeights {
  private minute = -1;
  private used = new Map<string, number>();

  constructor(
    /** weight per minute an address may use */
    readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds `weight` for `address` and says where its count stands. */
  spend(address: string, weight: number): WeightUse {
    const t = this.now();
    const minute = Math.floor(t / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.used = new Map();
    }
    const used = (this.used.get(address) ?? 0) + weight;
    this.used.set(address, used);
    return { used, over: used > this.limit, retryAfterSeconds: Math.max(1, Math.ceil(((minute + 1) * 60_000 - t) / 1000)) };
  }
}

/**
 * A PriceFeed whose ticks leave signed (docs/decisions.md#signed-prices): wraps any source (the
 * synthetic walk, a NATS or exchange feed) and hands each tick to its listeners signed by the
 * price signer, with the next sequence number.
 *
 * With `heartbeatMs`, the price source also says "still this price" when its source is quiet: a
 * second after the last tick it signs the same price again at the time it signs it, and so on
 * every `heartbeatMs` while the last tick from the source is at most `holdMs` old; past that it
 * stops, so a source that died still goes stale. A close needs the signed tick after the expiry
 * (docs/decisions.md#a-price-source-that-keeps-talking), and a gap of several seconds would hold
 * every bet expiring in it. Only for a source whose ticks reach it at the time they carry (the
 * synthetic walk): a heartbeat says the price held until now, which a late tick could contradict.
 *
 * @example
 *   const feed = new SigningPriceFeed(new SyntheticPriceFeed(), loadPriceSigner({ dataDir }), log, { heartbeatMs: 1_000 });
 */
import { Listeners } from './listeners.ts';
import type { PriceFeed, PriceTick, Unsubscribe } from './port.ts';
import type { PriceSigner } from './price-signer.ts';
import { componentLog, log as rootLog, type Logger } from '../../kernel/log.ts';

/** The heartbeat of a price source whose ticks carry the time they reach it. */
export interface Heartbeat {
  /** the same price is signed again after this long without a tick */
  heartbeatMs: number;
  /** no heartbeat once the source's last tick is older than this [10 s] */
  holdMs?: number;
  /** unix ms [Date.now] */
  now?: () => number;
}

/** How long a quiet source's last price is signed again by default: far below the 30 s staleness rule. */
const HOLD_MS = 10_000;

/** The heartbeat of the synthetic walk, embedded and in `npm run feed`: at least one signed tick a second. */
export const SYNTHETIC_HEARTBEAT: Heartbeat = { heartbeatMs: 1_000 };

/** `inner`'s ticks, signed by `signer`. */
export class SigningPriceFeed implements PriceFeed {
  private readonly listeners: Listeners<PriceTick>;
  private unsubscribe: Unsubscribe | undefined;
  /** the source's last tick, and the last tick signed (a heartbeat's ts) */
  private last: { source: PriceTick; signedTs: number } | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly inner: PriceFeed,
    readonly signer: PriceSigner,
    logger: Logger = rootLog,
    private readonly heartbeat?: Heartbeat,
  ) {
    this.listeners = new Listeners(componentLog(logger, 'signing-price-feed'));
  }

  async start(): Promise<void> {
    this.unsubscribe ??= this.inner.onTick((tick) => {
      this.last = { source: tick, signedTs: tick.ts };
      this.emit(tick);
    });
    await this.inner.start();
  }

  private emit(tick: PriceTick): void {
    this.listeners.emit(this.signer.sign(tick));
    if (!this.heartbeat) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.beat(), this.heartbeat.heartbeatMs);
    this.timer.unref();
  }

  private beat(): void {
    this.timer = null;
    const { last, heartbeat } = this;
    if (!last || !heartbeat) return;
    const now = (heartbeat.now ?? Date.now)();
    // a heartbeat never goes back in time, and stops once the source has been quiet too long
    if (now - last.source.ts > (heartbeat.holdMs ?? HOLD_MS) || now <= last.signedTs) return;
    last.signedTs = now;
    this.emit({ ...last.source, ts: now });
  }

  onTick(listener: (tick: PriceTick) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.inner.stop();
  }
}

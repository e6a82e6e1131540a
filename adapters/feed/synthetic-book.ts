/**
 * Synthetic 20-level books for BTCUSDT (~97000), ETHUSDT (~3500) and SOLUSDT (~150), the embedded
 * default of the exchange (docs/exchange-api.md#symbols). Each refresh the mid
 * walks, the spread is one tick or a few, level gaps and sizes vary; books are always sorted and
 * never crossed, in the wire format of `messages.ts`.
 *
 * @example
 *   const feed = new SyntheticBookFeed({ intervalMs: 500 });
 *   feed.onBook((b) => books.set(b.symbol, b)); await feed.start();
 */
import { componentLog, log as rootLog, type Logger } from '../../kernel/log.ts';
import { Repeater, systemClock, type Clock } from './clock.ts';
import { Listeners } from './listeners.ts';
import { type BookLevel, type BookSnapshot, type BookFeed, type Unsubscribe } from './port.ts';
import { normal, type Random } from './random.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import { formatFixed } from '../../kernel/fixed-point.ts';

/** Shape of one synthetic market. Prices move in ticks of 10^-priceDecimals, sizes in steps of 10^-qtyDecimals. */
export interface BookMarketShape {
  mid: number;
  priceDecimals: number;
  qtyDecimals: number;
  /** typical size of a level near the top */
  typicalQty: number;
  /** mid volatility, quote units per sqrt(second) */
  volatility: number;
  /** widest gap between neighbouring levels, in ticks */
  maxLevelGapTicks: number;
}

/** Markets roughly like Binance's spot books (tick 0.01 for all three). */
export const BOOK_MARKETS: Record<BookSymbol, BookMarketShape> = {
  BTCUSDT: { mid: 97_000, priceDecimals: 2, qtyDecimals: 5, typicalQty: 0.3, volatility: 8, maxLevelGapTicks: 40 },
  ETHUSDT: { mid: 3_500, priceDecimals: 2, qtyDecimals: 4, typicalQty: 4, volatility: 0.45, maxLevelGapTicks: 6 },
  SOLUSDT: { mid: 150, priceDecimals: 2, qtyDecimals: 3, typicalQty: 60, volatility: 0.03, maxLevelGapTicks: 2 },
};

/** Seconds for a mid's deviation from its start to shrink by e, so books stay near their usual levels. */
const REVERSION_SECONDS = 7_200;

/** Integer-tick decimal, e.g. toDecimal(9700010, 2) = "97000.10". */
const toDecimal = (units: number, decimals: number): string => formatFixed(BigInt(Math.trunc(units)), decimals);

/** Pure model of one symbol's book. */
export class BookModel {
  private mid: number;

  constructor(
    readonly symbol: BookSymbol,
    private readonly random: Random,
    private readonly shape: BookMarketShape = BOOK_MARKETS[symbol],
    private readonly depth = 20,
  ) {
    this.mid = shape.mid;
  }

  /** Moves the mid by `dtMs` of market time and draws a fresh book stamped `ts`. */
  next(dtMs: number, ts: number): BookSnapshot {
    const s = this.shape;
    const dt = dtMs / 1000;
    this.mid += ((s.mid - this.mid) * dt) / REVERSION_SECONDS + s.volatility * Math.sqrt(dt) * normal(this.random);
    const tickScale = 10 ** s.priceDecimals;
    // mostly a one-tick spread, sometimes a few ticks
    const spread = this.random() < 0.7 ? 1 : 2 + Math.floor(this.random() * 4);
    const bestBid = Math.max(this.depth * s.maxLevelGapTicks + 1, Math.floor(this.mid * tickScale - spread / 2));
    const bids: BookLevel[] = [];
    const asks: BookLevel[] = [];
    let bid = bestBid;
    let ask = bestBid + spread;
    for (let level = 0; level < this.depth; level++) {
      bids.push([toDecimal(bid, s.priceDecimals), this.qty(level)]);
      asks.push([toDecimal(ask, s.priceDecimals), this.qty(level)]);
      bid -= this.gap();
      ask += this.gap();
    }
    return { symbol: this.symbol, bids, asks, ts };
  }

  private gap(): number {
    return this.random() < 0.6 ? 1 : 1 + Math.ceil(this.random() * (this.shape.maxLevelGapTicks - 1));
  }

  private qty(level: number): string {
    const s = this.shape;
    const scale = 10 ** s.qtyDecimals;
    const raw = s.typicalQty * (1 + level / 10) * Math.exp(0.9 * normal(this.random));
    return toDecimal(Math.max(1, Math.round(raw * scale)), s.qtyDecimals);
  }
}

/** Options of the synthetic book feed; every part is injectable for deterministic tests. */
export interface SyntheticBookFeedOptions {
  /** refresh period of each book, ms (default 500) */
  intervalMs?: number;
  random?: Random;
  clock?: Clock;
  logger?: Logger;
}

/** BookFeed that invents BTC/ETH/SOL books every `intervalMs`. */
export class SyntheticBookFeed implements BookFeed {
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly models: BookModel[];
  private readonly listeners: Listeners<BookSnapshot>;
  private readonly log: Logger;
  private readonly loop: Repeater;

  constructor(options: SyntheticBookFeedOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.intervalMs = options.intervalMs ?? 500;
    const random = options.random ?? Math.random;
    this.models = BOOK_SYMBOLS.map((symbol) => new BookModel(symbol, random));
    this.log = componentLog(options.logger ?? rootLog, 'synthetic-book-feed');
    this.listeners = new Listeners(this.log);
    let dtMs = 0;
    this.loop = new Repeater(this.clock, () => {
      const ts = this.clock.now();
      for (const model of this.models) this.listeners.emit(model.next(dtMs, ts));
      dtMs = this.intervalMs;
      return this.intervalMs;
    });
  }

  /** Emits a book of every symbol at once, then again every `intervalMs`. */
  async start(): Promise<void> {
    if (this.loop.start()) this.log.info({ symbols: BOOK_SYMBOLS, intervalMs: this.intervalMs }, 'synthetic books started');
  }

  onBook(listener: (book: BookSnapshot) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  async stop(): Promise<void> {
    if (this.loop.stop()) this.log.info('synthetic books stopped');
  }
}

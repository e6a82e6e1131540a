/**
 * Synthetic SOL/USDT ticks, the embedded default when `NATS_URL` is unset (docs/operations.md#run).
 * Spacing is a real feed's (median about 0.5 s, gaps of several seconds:
 * docs/operations.md#market-data-on-nats). Prices are a random walk of the log price with SOL's
 * realistic volatility (about 80 % a year, in calm and busy spells around it), slowly pulled back
 * towards 150 so a long run stays in range, quoted with the full 8 fraction digits: like on a real
 * market, a 15 s window almost never ends exactly on its entry price.
 *
 * @example
 *   const feed = new SyntheticPriceFeed();            // real time, Math.random
 *   const test = new SyntheticPriceFeed({ clock, random: seededRandom(1) });
 */
import { componentLog, log as rootLog, type Logger } from '../../kernel/log.ts';
import { Repeater, systemClock, type Clock } from './clock.ts';
import { Listeners } from './listeners.ts';
import type { PriceFeed, PriceTick, Unsubscribe } from './port.ts';
import { normal, type Random } from './random.ts';

/** Seconds in a year, for annualised volatility. */
const YEAR_SECONDS = 365 * 24 * 3600;

/** Shape of the synthetic SOL market. */
export interface SolMarketShape {
  /** price the walk is pulled back to, in USDT */
  anchor: number;
  /** seconds for a log deviation from the anchor to shrink by e (mean reversion) */
  reversionSeconds: number;
  /** annualised volatility of the log price, in calm and in busy spells */
  calmVolatility: number;
  busyVolatility: number;
  /** mean length of a calm or busy spell, seconds */
  spellSeconds: number;
  /** median tick spacing, ms, and its log-normal spread */
  medianSpacingMs: number;
  spacingSigma: number;
  /** chance that a spacing is a gap instead, and the gap range in ms */
  gapProbability: number;
  gapMinMs: number;
  gapMaxMs: number;
}

/** SOL's realised volatility has been 60-100 % a year: calm spells at 55 %, busy ones at 110 %. */
export const SOL_MARKET: SolMarketShape = {
  anchor: 150,
  reversionSeconds: 7 * 24 * 3600,
  calmVolatility: 0.55,
  busyVolatility: 1.1,
  spellSeconds: 600,
  medianSpacingMs: 500,
  spacingSigma: 0.45,
  gapProbability: 0.03,
  gapMinMs: 2_000,
  gapMaxMs: 6_000,
};

/** Fraction digits of a synthetic price (the wire's 8). */
export const PRICE_DIGITS = 8;

/** The next tick: how long after the previous one it comes, and its price. */
export interface SolTickStep {
  delayMs: number;
  price: string;
}

/** Pure model of the SOL tick stream: no timers, one `next()` per tick. */
export class SolTickModel {
  private logPrice: number;
  private busy = false;

  constructor(
    private readonly random: Random,
    private readonly shape: SolMarketShape = SOL_MARKET,
    start = shape.anchor,
  ) {
    this.logPrice = Math.log(start);
  }

  /** The current price with 8 fraction digits. */
  get price(): string {
    return Math.exp(this.logPrice).toFixed(PRICE_DIGITS);
  }

  /** Advances to the next tick. */
  next(): SolTickStep {
    const s = this.shape;
    const delayMs =
      this.random() < s.gapProbability
        ? s.gapMinMs + this.random() * (s.gapMaxMs - s.gapMinMs)
        : Math.min(s.gapMinMs - 1, Math.max(20, s.medianSpacingMs * Math.exp(s.spacingSigma * normal(this.random))));
    const dt = delayMs / 1000;
    if (this.random() < dt / s.spellSeconds) this.busy = !this.busy;
    const sigma = (this.busy ? s.busyVolatility : s.calmVolatility) / Math.sqrt(YEAR_SECONDS);
    this.logPrice += ((Math.log(s.anchor) - this.logPrice) * dt) / s.reversionSeconds + sigma * Math.sqrt(dt) * normal(this.random);
    return { delayMs: Math.round(delayMs), price: this.price };
  }
}

/** Options of the synthetic SOL feed; every part is injectable for deterministic tests. */
export interface SyntheticPriceFeedOptions {
  random?: Random;
  clock?: Clock;
  shape?: SolMarketShape;
  logger?: Logger;
}

/** PriceFeed that invents SOL/USDT ticks in (possibly simulated) time. */
export class SyntheticPriceFeed implements PriceFeed {
  private readonly clock: Clock;
  private readonly model: SolTickModel;
  private readonly listeners: Listeners<PriceTick>;
  private readonly log: Logger;
  private readonly loop: Repeater;

  constructor(options: SyntheticPriceFeedOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.model = new SolTickModel(options.random ?? Math.random, options.shape);
    this.log = componentLog(options.logger ?? rootLog, 'synthetic-price-feed');
    this.listeners = new Listeners(this.log);
    let price = this.model.price;
    this.loop = new Repeater(this.clock, () => {
      this.listeners.emit({ symbol: 'solusdt', price, ts: this.clock.now() });
      const step = this.model.next();
      price = step.price;
      return step.delayMs;
    });
  }

  /** Emits a first tick at once, then ticks at the model's spacing. */
  async start(): Promise<void> {
    if (this.loop.start()) this.log.info({ price: this.model.price }, 'synthetic SOL/USDT ticks started');
  }

  onTick(listener: (tick: PriceTick) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  async stop(): Promise<void> {
    if (this.loop.stop()) this.log.info('synthetic SOL/USDT ticks stopped');
  }
}

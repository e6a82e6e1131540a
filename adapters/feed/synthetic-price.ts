/**
 * Synthetic SOL/USDT ticks, the embedded default when `NATS_URL` is unset (design: "Run contract").
 * Spacing follows gateway spec §1.4 (median about 0.5 s, gaps of several seconds). Prices are a
 * latent walk around 150 rounded to the 0.01 tick of the real SOLUSDT market, with calm and busy
 * spells, so that roughly a third of 15 s windows end on their entry price: ties (exit == entry)
 * happen as they do on the stand.
 *
 * @example
 *   const feed = new SyntheticPriceFeed();            // real time, Math.random
 *   const test = new SyntheticPriceFeed({ clock, random: seededRandom(1) });
 */
import { componentLog, log as rootLog, type Logger } from '../../runtime/log.ts';
import { Repeater, systemClock, type Clock } from './clock.ts';
import { Listeners } from './listeners.ts';
import type { PriceFeed, PriceTick, Unsubscribe } from './port.ts';
import { normal, type Random } from './random.ts';

/** Shape of the synthetic SOL market. */
export interface SolMarketShape {
  /** price the walk is pulled back to, in USDT */
  anchor: number;
  /** seconds for a deviation from the anchor to shrink by e (mean reversion) */
  reversionSeconds: number;
  /** latent volatility, USDT per sqrt(second), in calm and busy spells */
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

/** Defaults tuned so about 1/3 of 15 s windows tie (checked in synthetic-price.test.ts). */
export const SOL_MARKET: SolMarketShape = {
  anchor: 150,
  reversionSeconds: 7_200,
  calmVolatility: 0.0012,
  busyVolatility: 0.012,
  spellSeconds: 120,
  medianSpacingMs: 500,
  spacingSigma: 0.45,
  gapProbability: 0.03,
  gapMinMs: 2_000,
  gapMaxMs: 6_000,
};

/** The next tick: how long after the previous one it comes, and its price in cents. */
export interface SolTickStep {
  delayMs: number;
  cents: number;
}

/** Pure model of the SOL tick stream: no timers, one `next()` per tick. */
export class SolTickModel {
  private latent: number;
  private busy = false;

  constructor(
    private readonly random: Random,
    private readonly shape: SolMarketShape = SOL_MARKET,
    start = shape.anchor,
  ) {
    this.latent = start;
  }

  /** Price of the current state, quantised to the 0.01 tick. */
  get cents(): number {
    return Math.round(this.latent * 100);
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
    const vol = this.busy ? s.busyVolatility : s.calmVolatility;
    this.latent += ((s.anchor - this.latent) * dt) / s.reversionSeconds + vol * Math.sqrt(dt) * normal(this.random);
    // a price is never zero or negative, whatever the draws
    this.latent = Math.max(this.latent, 0.01);
    return { delayMs: Math.round(delayMs), cents: this.cents };
  }
}

/** "150.12" from 15012. */
export const centsToDecimal = (cents: number): string => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

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
    let cents = this.model.cents;
    this.loop = new Repeater(this.clock, () => {
      this.listeners.emit({ symbol: 'solusdt', price: centsToDecimal(cents), ts: this.clock.now() });
      const step = this.model.next();
      cents = step.cents;
      return step.delayMs;
    });
  }

  /** Emits a first tick at once, then ticks at the model's spacing. */
  async start(): Promise<void> {
    const price = centsToDecimal(this.model.cents);
    if (this.loop.start()) this.log.info({ price }, 'synthetic SOL/USDT ticks started');
  }

  onTick(listener: (tick: PriceTick) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  async stop(): Promise<void> {
    if (this.loop.stop()) this.log.info('synthetic SOL/USDT ticks stopped');
  }
}

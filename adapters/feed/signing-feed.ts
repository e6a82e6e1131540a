/**
 * A PriceFeed whose ticks leave signed (docs/decisions.md#signed-prices): wraps any source (the
 * synthetic walk, a NATS or exchange feed) and hands each tick to its listeners signed by the
 * price signer, with the next sequence number.
 *
 * @example
 *   const feed = new SigningPriceFeed(new SyntheticPriceFeed(), loadPriceSigner({ dataDir }));
 */
import { Listeners } from './listeners.ts';
import type { PriceFeed, PriceTick, Unsubscribe } from './port.ts';
import type { PriceSigner } from './price-signer.ts';
import { componentLog, log as rootLog, type Logger } from '../../kernel/log.ts';

/** `inner`'s ticks, signed by `signer`. */
export class SigningPriceFeed implements PriceFeed {
  private readonly listeners: Listeners<PriceTick>;
  private unsubscribe: Unsubscribe | undefined;

  constructor(
    private readonly inner: PriceFeed,
    readonly signer: PriceSigner,
    logger: Logger = rootLog,
  ) {
    this.listeners = new Listeners(componentLog(logger, 'signing-price-feed'));
  }

  async start(): Promise<void> {
    this.unsubscribe ??= this.inner.onTick((tick) => this.listeners.emit(this.signer.sign(tick)));
    await this.inner.start();
  }

  onTick(listener: (tick: PriceTick) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.inner.stop();
  }
}

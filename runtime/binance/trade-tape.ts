/**
 * The venue's public trade tape (docs/exchange-api.md#binance-trades): every fill a commit made
 * (a taker fill of a market or marketable limit order, a resting order's maker fill, a native
 * market order's book level), of every account, anonymous, numbered per symbol by the tape store.
 * `record` appends a commit's fills after the commit; the tail reads each symbol's tape past the
 * last trade it told (kicked by `record`, else every `pollMs`), so listeners (the trade streams,
 * the candles) get every trade of every exchange process on the store, once and in id order.
 *
 * @example
 *   const tape = new TradeTape(createMemoryTapeStore(), log);
 *   tape.onTrade((t) => candles.addTrade(t));
 *   await tape.start();
 *   await tape.record(change.trades ?? []); // after the commit
 */
import type { OrderRecord, TradeRecord } from '../../adapters/store/exchange/port.ts';
import type { TapeStore, TapeTrade, TapeTradeBody } from '../../adapters/store/tape/port.ts';
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';
import type { Logger } from '../../kernel/log.ts';
import { fmt8 } from './book-sequence.ts';

/** A fill as the tape keeps it: the buyer is the maker when a resting BUY filled, or a taker SELL hit a bid. */
export const tapeBodyOf = (t: TradeRecord): TapeTradeBody => ({
  price: fmt8(t.price),
  qty: fmt8(t.qty),
  quoteQty: fmt8(t.quoteQty),
  time: t.time,
  isBuyerMaker: (t.side === 'BUY') === (t.liquidity === 'MAKER'),
});

/** The book levels a native market order took (docs/exchange-api.md#place), each a trade of the tape: the order was the taker. */
export const nativeTapeBodies = (o: OrderRecord): TapeTradeBody[] => {
  const time = Date.parse(o.createdAt);
  return o.fills.map((f) => ({ price: fmt8(f.price), qty: fmt8(f.qty), quoteQty: fmt8(f.gross), time, isBuyerMaker: o.side === 'SELL' }));
};

const PAGE = 1000;

/** The tape of one exchange process over a (maybe shared) tape store. */
export class TradeTape {
  private readonly listeners = new Set<(t: TapeTrade) => void>();
  private readonly told = new Map<BookSymbol, number>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private kicked = false;
  private failing = false;
  /** per symbol: the append in flight (settled either way), and the batch waiting for it */
  private readonly appending = new Map<BookSymbol, Promise<void>>();
  private readonly nextAppend = new Map<BookSymbol, { batch: TapeTradeBody[]; sent: Promise<void> }>();

  constructor(
    readonly store: TapeStore,
    private readonly log: Logger,
    private readonly pollMs = 200,
  ) {}

  /**
   * Appends the fills of a committed change (the engine's `trades`, and the book levels of a native
   * market order when the change is one), per symbol in their order; a store failure is logged
   * (the ledger has them). Group commit: fills recorded while a symbol's append is in flight go
   * together in its next append (one script for a burst of orders, not one per order), and each
   * call resolves once the append that carries its fills answered.
   */
  async record(trades: readonly TradeRecord[], native?: OrderRecord): Promise<void> {
    const bySymbol = new Map<BookSymbol, TapeTradeBody[]>();
    for (const t of trades) bySymbol.set(t.symbol, [...(bySymbol.get(t.symbol) ?? []), tapeBodyOf(t)]);
    if (native && native.fills.length > 0) bySymbol.set(native.symbol, [...(bySymbol.get(native.symbol) ?? []), ...nativeTapeBodies(native)]);
    if (bySymbol.size === 0) return;
    try {
      await Promise.all([...bySymbol].map(([symbol, bodies]) => this.enqueue(symbol, bodies)));
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : err, trades: trades.length }, 'fills not put on the trade tape');
    }
    this.kick();
  }

  /** Adds `bodies` to `symbol`'s next append (sent when the one in flight answered); resolves when it answered. */
  private enqueue(symbol: BookSymbol, bodies: readonly TapeTradeBody[]): Promise<void> {
    let next = this.nextAppend.get(symbol);
    if (!next) {
      const batch: TapeTradeBody[] = [];
      const before = this.appending.get(symbol) ?? Promise.resolve();
      const sent = before.then(async () => {
        this.nextAppend.delete(symbol);
        const landed = this.store.append(symbol, batch);
        this.appending.set(
          symbol,
          landed.then(
            () => undefined,
            () => undefined,
          ),
        );
        await landed;
      });
      next = { batch, sent };
      this.nextAppend.set(symbol, next);
    }
    next.batch.push(...bodies);
    return next.sent;
  }

  /** Listens to every trade of the tape from `start` on; returns the unsubscribe. */
  onTrade(listener: (t: TapeTrade) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts telling trades made from now on (from when the store first answers, while it does not yet). */
  async start(): Promise<void> {
    if (this.loop) return;
    await this.findEnds().catch((err: unknown) => this.log.warn({ err: err instanceof Error ? err.message : err }, 'trade tape not readable yet'));
    this.running = true;
    this.loop = this.run();
  }

  /** Where each symbol's tape ends now, for the symbols not known yet. */
  private async findEnds(): Promise<void> {
    for (const symbol of BOOK_SYMBOLS) if (!this.told.has(symbol)) this.told.set(symbol, (await this.store.latest(symbol, 1))[0]?.id ?? 0);
  }

  /** Stops the tail (the store stays open). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  /** Reads the tape now rather than at the next poll. */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.kicked = false;
      try {
        await this.findEnds();
        for (const symbol of BOOK_SYMBOLS) await this.tail(symbol);
        if (this.failing) this.log.info('trade tape readable again');
        this.failing = false;
      } catch (err) {
        if (!this.failing) this.log.warn({ err: err instanceof Error ? err.message : err }, 'trade tape not readable; retrying');
        this.failing = true;
      }
      if (!this.kicked && this.running) await this.pause();
    }
  }

  private async tail(symbol: BookSymbol): Promise<void> {
    for (;;) {
      const after = this.told.get(symbol);
      if (after === undefined) return;
      const page = await this.store.from(symbol, after + 1, PAGE);
      for (const t of page) {
        this.told.set(symbol, t.id);
        for (const l of this.listeners) {
          try {
            l(t);
          } catch (err) {
            this.log.warn({ err: err instanceof Error ? err.message : err, symbol, id: t.id }, 'trade not delivered to a listener');
          }
        }
      }
      if (page.length < PAGE) return;
    }
  }

  private pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      this.wake = done;
    });
  }
}

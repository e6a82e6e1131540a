/** A stored candle read back (file lines and Redis members), validated (docs/contributing.md#style: valibot at the edges). */
import * as v from 'valibot';
import { BOOK_SYMBOLS } from '../../../kernel/domain.ts';

const Price = v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/));

/** A candle as stored. */
export const CandleJson = v.object({
  openTime: v.pipe(v.number(), v.integer()),
  open: Price,
  high: Price,
  low: Price,
  close: Price,
  books: v.pipe(v.number(), v.integer()),
  trades: v.optional(
    v.object({
      volume: Price,
      quoteVolume: Price,
      count: v.pipe(v.number(), v.integer()),
      takerBuyVolume: Price,
      takerBuyQuoteVolume: Price,
      firstId: v.pipe(v.number(), v.integer()),
      lastId: v.pipe(v.number(), v.integer()),
    }),
  ),
});

/** One line of the candle file: the symbol and its candle. */
export const CandleLine = v.object({ symbol: v.picklist(BOOK_SYMBOLS), candle: CandleJson });

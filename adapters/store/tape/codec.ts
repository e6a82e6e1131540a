/** A tape trade read back from storage, validated (docs/contributing.md#style: valibot at the edges). */
import * as v from 'valibot';

const Amount = v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/));

/** A trade's body as stored (without symbol and id, which the key and entry id carry). */
export const TapeTradeJson = v.object({
  price: Amount,
  qty: Amount,
  quoteQty: Amount,
  time: v.pipe(v.number(), v.integer()),
  isBuyerMaker: v.boolean(),
});

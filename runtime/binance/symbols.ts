/**
 * The exchange's symbols as the Binance-shaped surface names them (docs/exchange-api.md#binance-market-data):
 * base and quote asset, precisions and the filters an order must pass (PRICE_FILTER, LOT_SIZE,
 * MARKET_LOT_SIZE, NOTIONAL), with Binance's own values for these three spot markets. The order
 * endpoints check orders against the same table.
 */
import { BOOK_SYMBOLS, type BookSymbol } from '../../kernel/domain.ts';

/** One symbol's trading rules; amounts are decimal strings with 8 fraction digits, as Binance sends them. */
export interface SymbolRules {
  symbol: BookSymbol;
  baseAsset: string;
  quoteAsset: 'USDT';
  /** price step (PRICE_FILTER.tickSize) */
  tickSize: string;
  minPrice: string;
  maxPrice: string;
  /** quantity step (LOT_SIZE.stepSize) */
  stepSize: string;
  minQty: string;
  maxQty: string;
  /** market orders: the largest quantity (MARKET_LOT_SIZE.maxQty) */
  marketMaxQty: string;
  /** NOTIONAL.minNotional / maxNotional */
  minNotional: string;
  maxNotional: string;
}

/** Binance's spot rules for the three markets (tick 0.01 each). */
export const SYMBOL_RULES: Record<BookSymbol, SymbolRules> = {
  BTCUSDT: rules('BTCUSDT', 'BTC', '0.01000000', '0.00001000', '9000.00000000', '123.00000000'),
  ETHUSDT: rules('ETHUSDT', 'ETH', '0.01000000', '0.00010000', '9000.00000000', '4400.00000000'),
  SOLUSDT: rules('SOLUSDT', 'SOL', '0.01000000', '0.00100000', '9000000.00000000', '47000.00000000'),
};

function rules(symbol: BookSymbol, baseAsset: string, tickSize: string, stepSize: string, maxQty: string, marketMaxQty: string): SymbolRules {
  return {
    symbol,
    baseAsset,
    quoteAsset: 'USDT',
    tickSize,
    minPrice: tickSize,
    maxPrice: '1000000.00000000',
    stepSize,
    minQty: stepSize,
    maxQty,
    marketMaxQty,
    minNotional: '5.00000000',
    maxNotional: '9000000.00000000',
  };
}

/** Whether `name` is one of the exchange's symbols (exact case, as Binance compares). */
export const isBookSymbol = (name: string): name is BookSymbol => (BOOK_SYMBOLS as readonly string[]).includes(name);

/** The `exchangeInfo` entry of one symbol (docs/exchange-api.md#binance-market-data). */
export function exchangeInfoSymbol(r: SymbolRules) {
  return {
    symbol: r.symbol,
    status: 'TRADING',
    baseAsset: r.baseAsset,
    baseAssetPrecision: 8,
    quoteAsset: r.quoteAsset,
    quotePrecision: 8,
    quoteAssetPrecision: 8,
    baseCommissionPrecision: 8,
    quoteCommissionPrecision: 8,
    orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET'],
    icebergAllowed: false,
    ocoAllowed: false,
    otoAllowed: false,
    quoteOrderQtyMarketAllowed: true,
    allowTrailingStop: false,
    cancelReplaceAllowed: false,
    amendAllowed: false,
    pegInstructionsAllowed: false,
    isSpotTradingAllowed: true,
    isMarginTradingAllowed: false,
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: r.minPrice, maxPrice: r.maxPrice, tickSize: r.tickSize },
      { filterType: 'LOT_SIZE', minQty: r.minQty, maxQty: r.maxQty, stepSize: r.stepSize },
      { filterType: 'MARKET_LOT_SIZE', minQty: '0.00000000', maxQty: r.marketMaxQty, stepSize: '0.00000000' },
      {
        filterType: 'NOTIONAL',
        minNotional: r.minNotional,
        applyMinToMarket: true,
        maxNotional: r.maxNotional,
        applyMaxToMarket: false,
        avgPriceMins: 5,
      },
    ],
    permissions: [],
    permissionSets: [['SPOT']],
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: ['NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'],
  };
}

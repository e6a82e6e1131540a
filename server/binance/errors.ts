/**
 * Binance's errors (docs/exchange-api.md#binance-errors): `{code, msg}` with Binance's codes and
 * messages, and the HTTP status Binance answers each with (400 for a request's fault, 401 for a
 * key it does not accept, 429 past the request weight, 5xx for the venue's own trouble).
 */

/** A refusal answered as Binance answers it. */
export class BinanceError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly msg: string,
    readonly headers: ReadonlyArray<readonly [string, string]> = [],
  ) {
    super(msg);
    this.name = 'BinanceError';
  }

  /** The wire body. */
  body(): { code: number; msg: string } {
    return { code: this.code, msg: this.msg };
  }
}

const e = (status: number, code: number, msg: string) => new BinanceError(status, code, msg);

/** The errors this surface answers, by Binance's names for them. */
export const binance = {
  unknown: () => e(500, -1000, 'An unknown error occurred while processing the request.'),
  disconnected: () => e(503, -1001, 'Internal error; unable to process your request. Please try again.'),
  tooMuchWeight: (limit: number, retryAfterSeconds: number) =>
    new BinanceError(
      429,
      -1003,
      `Too much request weight used; current limit is ${limit} request weight per 1 MINUTE. Please use WebSocket Streams for live updates to avoid polling the API.`,
      [['Retry-After', String(retryAfterSeconds)]],
    ),
  tooManyOrders: (limit: number, intervalNum: number, interval: string) =>
    e(429, -1015, `Too many new orders; current limit is ${limit} orders per ${intervalNum} ${interval}.`),
  filterFailure: (filter: string) => e(400, -1013, `Filter failure: ${filter}`),
  invalidOrder: (msg: string) => e(400, -1013, msg),
  timestampOutside: () => e(400, -1021, 'Timestamp for this request is outside of the recvWindow.'),
  timestampAhead: () => e(400, -1021, "Timestamp for this request was 1000ms ahead of the server's time."),
  badSignature: () => e(400, -1022, 'Signature for this request is not valid.'),
  illegalChars: (param: string, legal: string) => e(400, -1100, `Illegal characters found in parameter '${param}'; legal range is '${legal}'.`),
  duplicateParam: () => e(400, -1101, 'Duplicate values for a parameter detected.'),
  mandatory: (param: string) => e(400, -1102, `Mandatory parameter '${param}' was not sent, was empty/null, or malformed.`),
  eitherParam: (a: string, b: string) => e(400, -1102, `Param '${a}' or '${b}' must be sent, but both were empty/null!`),
  unread: (read: number, sent: number) => e(400, -1104, `Not all sent parameters were read; read '${read}' parameter(s) but was sent '${sent}'.`),
  notRequired: (param: string) => e(400, -1106, `Parameter '${param}' sent when not required.`),
  badPrecision: (param: string) => e(400, -1111, `Parameter '${param}' has too much precision.`),
  badTimeInForce: () => e(400, -1115, 'Invalid timeInForce.'),
  badOrderType: () => e(400, -1116, 'Invalid orderType.'),
  badSide: () => e(400, -1117, 'Invalid side.'),
  emptyClientOrderId: () => e(400, -1118, 'New client order ID was empty.'),
  emptyOrigClientOrderId: () => e(400, -1119, 'Original client order ID was empty.'),
  tooLongWindow: (hours: number) => e(400, -1127, `More than ${hours} hours between startTime and endTime.`),
  badInterval: () => e(400, -1120, 'Invalid interval.'),
  badSymbol: () => e(400, -1121, 'Invalid symbol.'),
  badSymbolStatus: () => e(400, -1122, 'Invalid symbolStatus.'),
  badCombo: () => e(400, -1128, 'Combination of optional parameters invalid.'),
  invalidParam: (param: string) => e(400, -1130, `Data sent for parameter '${param}' is not valid.`),
  badRecvWindow: () => e(400, -1131, 'recvWindow must be less than 60000'),
  badTickerType: () => e(400, -1139, 'Invalid ticker type.'),
  duplicateSymbols: () => e(400, -1151, 'Symbol is present multiple times in the list.'),
  statusMismatch: () => e(400, -1220, "The symbol's status does not match the requested symbolStatus."),
  orderRejected: (msg: string) => e(400, -2010, msg),
  cancelRejected: (msg = 'Unknown order sent.') => e(400, -2011, msg),
  noSuchOrder: () => e(400, -2013, 'Order does not exist.'),
  badKeyFormat: () => e(401, -2014, 'API-key format invalid.'),
  rejectedKey: () => e(401, -2015, 'Invalid API-key, IP, or permissions for action.'),
} as const;

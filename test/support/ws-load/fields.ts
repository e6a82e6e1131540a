/**
 * Reading the few fields the load client needs (`type`, `seq`, `ts`) straight from an event's
 * bytes, without `JSON.parse` or a string per message: on the hot path every socket reads every
 * event, and parsing would make the client, not the server, the limit of the measurement.
 * Events are flat JSON objects as the gateway writes them (docs/gateway-api.md#events), so a key
 * with its quotes and colon appears once and never inside a string (quotes there are escaped).
 *
 * @example
 *   const seq = numberField(buf, start, end, SEQ_KEY); // -1 when absent
 *   const type = typeField(buf, start, end);            // 'price', 'bet_open', ... or '' when absent
 */

/** The key of `seq`, as the bytes searched for. */
export const SEQ_KEY = Buffer.from('"seq":');
/** The key of `ts` (a price event's unix ms). */
export const TS_KEY = Buffer.from('"ts":');
const TYPE_KEY = Buffer.from('"type":');

// the types of docs/gateway-api.md#events and the resume message: answered as constants, no string made
const KNOWN_TYPES = ['price', 'bet_open', 'bet_closed', 'bet_replay', 'resume'].map((t) => ({ name: t, bytes: Buffer.from(t) }));

const SPACE = 0x20;
const QUOTE = 0x22;
const ZERO = 0x30;
const NINE = 0x39;

/** Where `key` begins in `buf[start..end)`, searched from the end when `fromEnd`, or -1. */
function keyAt(buf: Buffer, start: number, end: number, key: Buffer, fromEnd: boolean): number {
  // a loop in JS over the few bytes before the key beats a native indexOf call per key on events this short
  const first = key[0] as number;
  const n = key.length;
  const step = fromEnd ? -1 : 1;
  for (let i = fromEnd ? end - n : start; fromEnd ? i >= start : i <= end - n; i += step) {
    if (buf[i] !== first) continue;
    let j = 1;
    while (j < n && buf[i + j] === key[j]) j++;
    if (j === n) return i;
  }
  return -1;
}

/** Where the value of `key` begins in `buf[start..end)` (blanks after the colon skipped), or -1. */
function valueAt(buf: Buffer, start: number, end: number, key: Buffer, fromEnd: boolean): number {
  const at = keyAt(buf, start, end, key, fromEnd);
  if (at < 0) return -1;
  let i = at + key.length;
  while (i < end && (buf[i] === SPACE || buf[i] === 0x09 || buf[i] === 0x0a || buf[i] === 0x0d)) i++;
  return i;
}

/** The non-negative integer under `key` in the JSON object `buf[start..end)`, or -1 when absent or not a plain integer. */
export function numberField(buf: Buffer, start: number, end: number, key: Buffer): number {
  // `seq` and `ts` are the last fields of the gateway's events: found first from the end
  let i = valueAt(buf, start, end, key, true);
  if (i < 0) return -1;
  let n = 0;
  const first = i;
  for (; i < end; i++) {
    const c = buf[i] as number;
    if (c < ZERO || c > NINE) break;
    n = n * 10 + (c - ZERO);
  }
  return i === first ? -1 : n;
}

/** The `type` of the JSON object `buf[start..end)`; '' when it has none. */
export function typeField(buf: Buffer, start: number, end: number): string {
  // `type` is the first field
  const i = valueAt(buf, start, end, TYPE_KEY, false);
  if (i < 0 || buf[i] !== QUOTE) return '';
  let close = i + 1;
  while (close < end && buf[close] !== QUOTE) close++;
  if (close >= end) return '';
  const size = close - i - 1;
  for (const known of KNOWN_TYPES) {
    if (known.bytes.length === size && buf.compare(known.bytes, 0, size, i + 1, close) === 0) return known.name;
  }
  return buf.toString('utf8', i + 1, close);
}

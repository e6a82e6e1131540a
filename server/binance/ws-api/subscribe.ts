/**
 * Checking `userDataStream.subscribe.signature` as Binance does
 * (docs/exchange-api.md#binance-user-data-stream): `apiKey`, `timestamp` (ms, or µs with 16
 * digits), optional `recvWindow` (at most 60000) and `signature`, signed over every other parameter
 * sorted by name as `name=value` joined with `&`: HMAC-SHA256 as hex, Ed25519 as base64. Errors are
 * the REST surface's (`../errors.ts`): -1102, -1100, -1131, -1021, -1022, -2014, -2015, -1104.
 */
import type { BinanceContext } from '../../../runtime/binance/context.ts';
import { signatureValid } from '../../../runtime/binance/signature.ts';
import type { ApiKeyRecord } from '../../../adapters/store/api-keys/port.ts';
import { binance } from '../errors.ts';

const KEY_TEXT = /^[A-Za-z0-9]{1,128}$/;
const RECV_WINDOW_TEXT = /^\d{1,20}(\.\d{1,3})?$/;
const MICROSECONDS_FROM = 100_000_000_000_000;
const ALLOWED = new Set(['apiKey', 'timestamp', 'recvWindow', 'signature', 'returnRateLimits']);

/** A parameter as a request may send it: a JSON string, number or boolean. */
type Scalar = string | number | boolean;

/** The text of a parameter as it is signed (a number as JSON writes it). */
const textOf = (value: Scalar): string => String(value);

/** The payload a client signs: every parameter but `signature`, sorted by name. */
export function wsSignedPayload(params: Record<string, Scalar>): string {
  return Object.keys(params)
    .filter((k) => k !== 'signature')
    .sort()
    .map((k) => `${k}=${textOf(params[k] as Scalar)}`)
    .join('&');
}

/** Resolves with the key the parameters are signed with, or rejects with Binance's error. */
export async function verifySubscription(ctx: BinanceContext, raw: unknown, nowMs: number): Promise<ApiKeyRecord> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw binance.mandatory('apiKey');
  const entries = Object.entries(raw as Record<string, unknown>);
  const bad = entries.find(([, value]) => !['string', 'number', 'boolean'].includes(typeof value));
  if (bad) throw binance.illegalChars(bad[0], 'a string or a number');
  const params = raw as Record<string, Scalar>;
  const unread = entries.filter(([k]) => !ALLOWED.has(k)).length;
  if (unread > 0) throw binance.unread(entries.length - unread, entries.length);
  const apiKey = params.apiKey;
  if (apiKey === undefined || apiKey === '') throw binance.mandatory('apiKey');
  if (typeof apiKey !== 'string' || !KEY_TEXT.test(apiKey)) throw binance.badKeyFormat();
  const timestampText = params.timestamp === undefined ? '' : textOf(params.timestamp);
  if (timestampText === '') throw binance.mandatory('timestamp');
  if (!/^\d{1,20}$/.test(timestampText)) throw binance.illegalChars('timestamp', '^[0-9]{1,20}$');
  const signature = params.signature;
  if (signature === undefined || signature === '') throw binance.mandatory('signature');
  let recvWindow = 5_000;
  if (params.recvWindow !== undefined) {
    const text = textOf(params.recvWindow);
    if (!RECV_WINDOW_TEXT.test(text)) throw binance.illegalChars('recvWindow', '^[0-9]{1,20}(\\.[0-9]{1,3})?$');
    recvWindow = Number(text);
    if (recvWindow > 60_000) throw binance.badRecvWindow();
  }
  const key = await ctx.keys.get(apiKey);
  if (!key) throw binance.rejectedKey();
  const stamp = Number(timestampText);
  const timestamp = stamp >= MICROSECONDS_FROM ? stamp / 1000 : stamp;
  if (timestamp >= nowMs + 1000) throw binance.timestampAhead();
  if (nowMs - timestamp > recvWindow) throw binance.timestampOutside();
  if (!signatureValid(key, wsSignedPayload(params), textOf(signature))) throw binance.badSignature();
  return key;
}

/**
 * SIGNED requests as Binance checks them (docs/exchange-api.md#binance-signing): the key in
 * `X-MBX-APIKEY` (-2014 when absent or malformed, -2015 when unknown), `timestamp` in ms or µs
 * within `recvWindow` (default 5000, at most 60000; -1021 outside), and the signature over the
 * query followed by the body (-1022). The key names the one account the request may reach.
 */
import type { ApiKeyRecord } from '../../adapters/store/api-keys/port.ts';
import { signatureValid, signedPayload } from '../../runtime/binance/signature.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import { binance } from './errors.ts';
import type { BinanceParams } from './params.ts';

/** Parameters every SIGNED request may send besides its own. */
export const SIGNING_PARAMS = ['timestamp', 'recvWindow', 'signature'] as const;

const KEY_TEXT = /^[A-Za-z0-9]{1,128}$/;
const RECV_WINDOW_TEXT = /^\d{1,20}(\.\d{1,3})?$/;
/** A timestamp at or past this is in microseconds (about year 5138 in ms). */
const MICROSECONDS_FROM = 100_000_000_000_000;

/** Who a verified request acts for. */
export interface Signer {
  accountId: string;
  key: ApiKeyRecord;
}

/** Checks the request's key, time and signature; resolves with the signer or rejects with Binance's error. */
export async function verifySigned(ctx: BinanceContext, apiKey: string | undefined, params: BinanceParams, nowMs: number): Promise<Signer> {
  if (apiKey === undefined || apiKey === '' || !KEY_TEXT.test(apiKey)) throw binance.badKeyFormat();
  const key = await ctx.keys.get(apiKey);
  if (!key) throw binance.rejectedKey();
  const timestampText = params.required('timestamp');
  if (!/^\d{1,20}$/.test(timestampText)) throw binance.illegalChars('timestamp', '^[0-9]{1,20}$');
  const raw = Number(timestampText);
  const timestamp = raw >= MICROSECONDS_FROM ? raw / 1000 : raw;
  const windowText = params.raw('recvWindow');
  let recvWindow = 5_000;
  if (windowText !== undefined && windowText !== '') {
    if (!RECV_WINDOW_TEXT.test(windowText)) throw binance.illegalChars('recvWindow', '^[0-9]{1,20}(\\.[0-9]{1,3})?$');
    recvWindow = Number(windowText);
    if (recvWindow > 60_000) throw binance.badRecvWindow();
  }
  const signature = params.required('signature');
  if (timestamp >= nowMs + 1000) throw binance.timestampAhead();
  if (nowMs - timestamp > recvWindow) throw binance.timestampOutside();
  if (!signatureValid(key, signedPayload(params.query, params.body), signature)) throw binance.badSignature();
  return { accountId: key.accountId, key };
}

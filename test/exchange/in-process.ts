/**
 * An exchange started in this test process on real sockets (`bin/exchange-app.ts`), fed by books
 * the test pushes, so a suite can place orders on the running exchange's engine (docs/orders.md)
 * and move the books that fill them; plus signing for Binance's WebSocket API.
 */
import { createHmac, sign, type KeyObject } from 'node:crypto';
import type { ExchangeStore } from '../../adapters/store/exchange/port.ts';
import type { AccountEventLogs } from '../../adapters/store/account-events/port.ts';
import { startExchange, type RunningExchange } from '../../bin/exchange-app.ts';
import type { AccountEventBody } from '../../runtime/exchange/account-events.ts';
import { pushFeed, type PushFeed } from '../support/push-feed.ts';
import { quietLog } from '../support/quiet-log.ts';

export { pushFeed, type PushFeed };
import { client, type Client } from './support.ts';

/** A running in-process exchange with its HTTP client. */
export interface InProcessExchange {
  exchange: RunningExchange;
  feed: PushFeed;
  api: Client;
  baseUrl: string;
  wsUrl: string;
  /** Opens an account through the native API and returns its id. */
  openAccount(name: string, initialCash?: string): Promise<string>;
}

/** Starts an exchange on any free port with `store` (and the account event logs, when given). */
export async function startInProcess(store: ExchangeStore, accountEvents?: AccountEventLogs<AccountEventBody>): Promise<InProcessExchange> {
  const feed = pushFeed();
  const exchange = await startExchange({
    port: 0,
    mgmtPort: 0,
    bookMaxAgeMs: 30_000,
    feed,
    store,
    logger: quietLog,
    ...(accountEvents ? { accountEvents } : {}),
  });
  const baseUrl = `http://127.0.0.1:${exchange.port}`;
  const api = client(baseUrl);
  return {
    exchange,
    feed,
    api,
    baseUrl,
    wsUrl: `ws://127.0.0.1:${exchange.port}`,
    async openAccount(name, initialCash = '10000') {
      const r = await api.post('/api/v1/accounts', { name, initialCash });
      if (r.status !== 201) throw new Error(`account not opened: ${r.status} ${r.text}`);
      return r.body.id as string;
    },
  };
}

/** The signed parameters of `userDataStream.subscribe.signature`, as Binance documents them (sorted by name, `k=v&...`). */
export function subscribeParams(
  key: { apiKey: string; secretKey: string } | { apiKey: string; privateKey: KeyObject },
  extra: Record<string, string | number> = {},
): Record<string, string | number> {
  const params: Record<string, string | number> = { apiKey: key.apiKey, timestamp: Date.now(), ...extra };
  const payload = Object.keys(params)
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  const signature =
    'secretKey' in key
      ? createHmac('sha256', key.secretKey).update(payload).digest('hex')
      : sign(null, Buffer.from(payload), key.privateKey).toString('base64');
  return { ...params, signature };
}

/**
 * An exchange killed (SIGKILL) in the middle of a burst of orders leaves a consistent ledger:
 * each order is in Redis whole or not at all, the journal still replays to the balances, and
 * retrying every Idempotency-Key on a fresh process trades each order exactly once.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '../../adapters/feed/nats-connection.ts';
import { parseJournalEntry, replayJournal } from '../../runtime/exchange/journal.ts';
import { freePort, startNatsServer, startRedisServer, startService, type RunningServer, type ServiceProcess } from '../support/servers.ts';
import { book, client, D, publishAndWait, type Client } from './support.ts';

let nats: RunningServer;
let redisServer: RunningServer;
let redis: Redis;
let nc: NatsConnection;
const processes: ServiceProcess[] = [];

async function startExchange(): Promise<Client> {
  const [port, mgmtPort] = [await freePort(), await freePort()];
  const p = await startService(
    'exchange',
    { EXCHANGE_PORT: String(port), EXCHANGE_MGMT_PORT: String(mgmtPort), NATS_URL: nats.url, REDIS_URL: redisServer.url, LOG_LEVEL: 'warn' },
    mgmtPort,
  );
  processes.push(p);
  const api = client(`http://127.0.0.1:${port}`);
  await publishAndWait(nc, api, book('SOLUSDT', [['149.90', '100000']], [['150.00', '100000']]));
  return api;
}

beforeAll(async () => {
  [nats, redisServer] = await Promise.all([startNatsServer(), startRedisServer()]);
  redis = new Redis(redisServer.url);
  nc = await connectNats(nats.url, 'crash-test');
});

afterAll(async () => {
  await nc?.drain();
  await redis?.quit();
  await Promise.all(processes.map((p) => p.stop()));
  await Promise.all([nats?.stop(), redisServer?.stop()]);
});

async function journalOf(id: string) {
  const raw = await redis.xrange(`exchange:account:${id}:journal`, '-', '+');
  return raw.map(([, f]) => parseJournalEntry(Object.fromEntries(f.flatMap((_, i) => (i % 2 === 0 ? [[f[i], f[i + 1]]] : [])))));
}

describe('crash in the middle of a burst', () => {
  it('keeps every order whole or absent, and retries trade each exactly once', async () => {
    const first = await startExchange();
    const id = (await first.post('/api/v1/accounts', { name: 'crash', initialCash: '100000' })).body.id as string;
    const place = (api: Client, i: number) =>
      api.post(`/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '1' }, { 'Idempotency-Key': `burst-${i}` });
    let done = 0;
    let firstAnswered: () => void = () => undefined;
    const killPoint = new Promise<void>((resolve) => (firstAnswered = resolve));
    const burst = Array.from({ length: 300 }, (_, i) =>
      place(first, i).then(
        (r) => {
          if (++done === 1) firstAnswered();
          return r;
        },
        () => null,
      ),
    );
    // kill once the first order is answered, while the rest are in flight; the ledger must stay whole
    await killPoint;
    await processes[0]!.stop('SIGKILL');
    const answered = (await Promise.all(burst)).filter((r) => r?.status === 201);

    const second = await startExchange();
    const entries = await journalOf(id);
    const trades = entries.filter((e) => e.type === 'TRADE');
    const history = (await second.get(`/api/v1/accounts/${id}/orders?limit=1000`)).body as { orderId: string }[];
    expect(history).toHaveLength(trades.length);
    expect(new Set(history.map((o) => o.orderId))).toEqual(new Set(trades.map((e) => (e.type === 'TRADE' ? e.orderId : ''))));
    for (const r of answered) expect(history.map((o) => o.orderId)).toContain(r!.body.orderId);
    expect(replayJournal(entries).cash.toFixed(10)).toBe((await second.get(`/api/v1/accounts/${id}`)).body.cash);
    expect(await redis.scard(`exchange:account:${id}:orders-unfinished`)).toBe(0);

    const retried = await Promise.all(Array.from({ length: 300 }, (_, i) => place(second, i)));
    expect(retried.map((r) => r.status)).toEqual(Array(300).fill(201));
    for (const r of answered) expect(retried.map((x) => x.body.orderId)).toContain(r!.body.orderId);
    const after = (await second.get(`/api/v1/accounts/${id}/orders?limit=1000`)).body as unknown[];
    expect(after).toHaveLength(300);
    const acc = (await second.get(`/api/v1/accounts/${id}`)).body;
    expect(D(acc.cash).eq(D('100000').minus(D('150.15').times(300)))).toBe(true);
    expect(replayJournal(await journalOf(id)).cash.toFixed(10)).toBe(acc.cash);
    console.log(`crash test: ${answered.length} of 300 answered before the kill, ${trades.length} committed`);
  });
});

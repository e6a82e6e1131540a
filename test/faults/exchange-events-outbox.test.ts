/**
 * The exchange's ledger events as an outbox (docs/operations.md#exchange-events-outbox): with NATS,
 * every journal entry and fill is relayed from the ledger (Redis, or the embedded file) to the JetStream stream
 * `EXCHANGE_EVENTS` with a dedup id. Real processes: NATS SIGKILLed while orders flow, the exchange
 * SIGKILLed between its commits and their publishing, and a relay cursor set back as a process
 * killed after publishing but before moving it leaves it. Each time, once everything is up, the
 * stream holds every event exactly once, in commit order per account.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeEventSchema, type ExchangeEvent } from '../../runtime/exchange/events.ts';
import type { OrderRecord } from '../../adapters/store/exchange/port.ts';
import { readFileExchangeLedger } from '../../adapters/store/exchange/file.ts';
import { journalFields } from '../../machines/exchange/journal.ts';
import { request } from '../support/fault-world.ts';
import { eventually } from '../support/eventually.ts';
import { managedNats, managedRedis, managedService, type Managed } from '../support/managed.ts';
import { freePort } from '../support/servers.ts';
import { tempDir } from '../support/temp-dir.ts';

const STREAM = 'EXCHANGE_EVENTS';
let redis: Managed & { url: string };
let nats: Managed & { url: string };
let exchange: Managed;
let db: Redis;
let base = '';
const dataDir = tempDir('exchange-outbox-');

beforeAll(async () => {
  [redis, nats] = await Promise.all([managedRedis(), managedNats()]);
  db = new Redis(redis.url);
}, 120_000);
afterAll(async () => {
  db?.disconnect();
  await Promise.all([nats?.stop(), redis?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the exchange with its ledger in Redis or in the file of `dataDir`. */
async function startExchange(ledger: 'Redis' | 'file'): Promise<void> {
  const [port, mgmtPort] = [await freePort(), await freePort()];
  exchange = managedService(
    'exchange',
    {
      EXCHANGE_PORT: String(port),
      EXCHANGE_MGMT_PORT: String(mgmtPort),
      REDIS_URL: ledger === 'Redis' ? redis.url : '',
      NATS_URL: nats.url,
      EXCHANGE_FEED: 'synthetic',
      DATA_DIR: join(dataDir, ledger),
      EXCHANGE_EVENTS_STREAM: STREAM,
    },
    mgmtPort,
  );
  await exchange.start();
  base = `http://127.0.0.1:${port}`;
}

/** An account's journal entries and order records, as its ledger holds them now. */
async function ledgerOf(ledger: 'Redis' | 'file', id: string): Promise<{ journal: Record<string, string>[]; orders: OrderRecord[] }> {
  if (ledger === 'file') {
    const file = readFileExchangeLedger(join(dataDir, 'file', 'exchange', 'ledger.log'));
    return { journal: (await file.journal(id)).map((e) => journalFields(e)), orders: await file.orders(id, 1_000_000) };
  }
  const entries = await db.xrange(`exchange:account:${id}:journal`, '-', '+');
  return {
    journal: entries.map(([, flat]) => Object.fromEntries(flat.flatMap((x, i) => (i % 2 === 0 ? [[x, flat[i + 1] as string]] : [])))),
    orders: (await db.lrange(`exchange:account:${id}:orders`, 0, -1)).map((s) => JSON.parse(s) as OrderRecord),
  };
}

async function openAccount(name: string): Promise<string> {
  const r = await request(base, 'POST', '/api/v1/accounts', { name, initialCash: '100000' });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

/** Market orders and a deposit on each account, all answered 201. */
async function trade(ids: string[], rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++)
    for (const id of ids) {
      const side = i % 2 === 0 ? 'BUY' : 'SELL';
      expect((await request(base, 'POST', `/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side, qty: '0.5' })).status).toBe(201);
      expect((await request(base, 'POST', `/api/v1/accounts/${id}/deposits`, { amount: '1' })).status).toBe(201);
    }
}

/** What the ledger says each account's events are: its journal in order, each trade's fills before its entry. */
async function expectedEvents(ledger: 'Redis' | 'file', id: string): Promise<string[]> {
  const { journal, orders } = await ledgerOf(ledger, id);
  const byId = new Map(orders.map((o) => [o.orderId, o]));
  const out: string[] = [];
  for (const fields of journal) {
    const order = fields.type === 'TRADE' ? byId.get(fields.orderId as string) : undefined;
    for (const f of order?.fills ?? []) out.push(`fill ${order?.orderId} ${f.price} ${f.qty}`);
    out.push(`journal ${fields.type} ${fields.ts} ${fields.amount ?? fields.qty}`);
  }
  return out;
}

const describeEvent = (e: ExchangeEvent): string =>
  e.kind === 'fill'
    ? `fill ${e.orderId} ${e.price} ${e.qty}`
    : e.kind === 'journal'
      ? `journal ${e.entry.type} ${e.entry.ts} ${'amount' in e.entry ? e.entry.amount : 'qty' in e.entry ? e.entry.qty : ''}`
      : e.kind;

/** Every event the stream holds, by account, in stream order. */
async function streamEvents(): Promise<Map<string, string[]>> {
  const nc = await connect({ servers: nats.url });
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(STREAM);
    const out = new Map<string, string[]>();
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(STREAM, { seq });
      if (!m) continue;
      const e = v.parse(ExchangeEventSchema, m.json());
      out.set(e.accountId, [...(out.get(e.accountId) ?? []), describeEvent(e)]);
    }
    return out;
  } finally {
    await nc.close();
  }
}

/** Waits until the stream holds exactly the ledger's events of `ids`, in order, each once (the bound is a hang guard). */
async function expectRelayed(ledger: 'Redis' | 'file', ids: string[]): Promise<void> {
  const compare = async () => {
    const held = await streamEvents();
    return Promise.all(ids.map(async (id) => ({ held: held.get(id) ?? [], expected: await expectedEvents(ledger, id) })));
  };
  await eventually(
    'every event in the stream',
    async () => ((await compare()).every((c) => JSON.stringify(c.held) === JSON.stringify(c.expected)) ? true : null),
    30_000,
  ).catch(() => undefined);
  for (const c of await compare()) expect(c.held).toEqual(c.expected);
}

describe.each(['Redis', 'file'] as const)('the exchange events outbox, the ledger in %s', (ledger) => {
  beforeAll(() => startExchange(ledger), 120_000);
  afterAll(() => exchange?.stop());

  it('relays every event committed while NATS was down once it is back: each once, in order per account', async () => {
    const ids = [await openAccount(`outbox-a-${ledger}`), await openAccount(`outbox-b-${ledger}`)];
    await trade(ids, 1);
    await expectRelayed(ledger, ids);
    await nats.kill();
    await trade(ids, 3);
    await nats.start();
    await expectRelayed(ledger, ids);
    expect((await expectedEvents(ledger, ids[0] as string)).filter((e) => e.startsWith('fill')).length).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('publishes after a restart what a killed exchange committed but had not published; a re-publish is stored once', async () => {
    const ids = [await openAccount(`killed-a-${ledger}`), await openAccount(`killed-b-${ledger}`)];
    await nats.kill();
    await trade(ids, 2);
    await exchange.kill(); // the commits landed, their events never left
    await nats.start();
    await exchange.start();
    await expectRelayed(ledger, ids);
    if (ledger === 'file') return; // a file's cursor is only ever moved forward, also by hand
    // a process killed after publishing but before moving the cursor: the cursor is behind what the stream holds
    await exchange.kill();
    for (const id of ids) await db.hset(`exchange:account:${id}:relayed`, 'journal', '0-0', 'orders', '0');
    await exchange.start();
    const caughtUp = async () => {
      for (const id of ids) {
        const [last] = await db.xrevrange(`exchange:account:${id}:journal`, '+', '-', 'COUNT', 1);
        if ((await db.hget(`exchange:account:${id}:relayed`, 'journal')) !== last?.[0]) return null;
      }
      return true;
    };
    await eventually('the relay cursors back at the end of the journals', caughtUp, 30_000, 100);
    await expectRelayed(ledger, ids);
  }, 120_000);
});

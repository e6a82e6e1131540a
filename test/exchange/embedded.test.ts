/**
 * The exchange on embedded defaults (no REDIS_URL, no NATS_URL): the ledger in a journal file
 * in DATA_DIR, synthetic books. Accounts, orders and balances survive a SIGKILL and restart; a
 * second process on the same DATA_DIR is refused naming the first; a bad variable stops the
 * process naming it.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, type ServiceProcess } from '../support/servers.ts';
import { client, ISO, PRICE8, type Client } from './support.ts';
import { tempDir } from '../support/temp-dir.ts';

let exchange: ServiceProcess;
let api: Client;
let dataDir: string;
const ports = { api: 0, mgmt: 0 };
const start = () =>
  startService(
    'exchange',
    { EXCHANGE_PORT: String(ports.api), EXCHANGE_MGMT_PORT: String(ports.mgmt), REDIS_URL: '', NATS_URL: '', EXCHANGE_FEED: '', DATA_DIR: dataDir },
    ports.mgmt,
  );

beforeAll(async () => {
  dataDir = tempDir('exchange-embedded-');
  [ports.api, ports.mgmt] = [await freePort(), await freePort()];
  exchange = await start();
  api = client(`http://127.0.0.1:${ports.api}`);
});
afterAll(async () => {
  await exchange?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded defaults', () => {
  it('says the ledger is kept in DATA_DIR', async () => {
    // the port can open before the parent has read every line the child wrote to the pipe
    await expect.poll(() => exchange.output()).toContain('REDIS_URL unset: the exchange ledger is kept in DATA_DIR');
  });

  it('quotes synthetic books for all three symbols and trades on them', async () => {
    const prices = await api.get('/api/v1/prices');
    expect(prices.body.map((p: { symbol: string }) => p.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']);
    for (const p of prices.body) {
      expect(p.bid).toMatch(PRICE8);
      expect(p.ts).toMatch(ISO);
    }
    const acc = await api.post('/api/v1/accounts', { name: 'embedded', initialCash: '100000' });
    const r = await api.post(`/api/v1/accounts/${acc.body.id}/orders`, { symbol: 'ETHUSDT', side: 'BUY', qty: '1.5' });
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('FILLED');
    const pnl = await api.get(`/api/v1/accounts/${acc.body.id}/pnl`);
    expect(pnl.status).toBe(200);
  });

  it('keeps every answered account, order and deposit across a SIGKILL', async () => {
    const acc = await api.post('/api/v1/accounts', { name: 'survivor', initialCash: '50000' });
    expect(acc.status).toBe(201);
    const id = acc.body.id as string;
    const answered: string[] = [];
    const burst = Array.from({ length: 40 }, async (_, i) => {
      const r =
        i % 4 === 0
          ? await api.post(`/api/v1/accounts/${id}/deposits`, { amount: '10' })
          : await api.post(`/api/v1/accounts/${id}/orders`, { symbol: 'SOLUSDT', side: 'BUY', qty: '0.5' });
      if (r.status === 201 && r.body.orderId) answered.push(r.body.orderId as string);
    });
    await Promise.all(burst);
    const before = (await api.get(`/api/v1/accounts/${id}`)).body;
    await exchange.stop('SIGKILL');
    exchange = await start();

    const after = await api.get(`/api/v1/accounts/${id}`);
    expect(after.status).toBe(200);
    expect(after.body.cash).toBe(before.cash);
    const orders = await api.get(`/api/v1/accounts/${id}/orders?limit=1000`);
    expect(orders.body.map((o: { orderId: string }) => o.orderId).sort()).toEqual([...answered].sort());
    const positions = await api.get(`/api/v1/accounts/${id}/positions`);
    expect(positions.body[0]).toMatchObject({ symbol: 'SOLUSDT', qty: (0.5 * answered.length).toFixed(10) });
  });

  it('refuses a second exchange on the same DATA_DIR, naming the pid that holds it', async () => {
    const [p, m] = [await freePort(), await freePort()];
    await expect(
      startService('exchange', { EXCHANGE_PORT: String(p), EXCHANGE_MGMT_PORT: String(m), REDIS_URL: '', NATS_URL: '', DATA_DIR: dataDir }, m, 20_000),
    ).rejects.toThrow(new RegExp(`DATA_DIR ${dataDir} is in use by another exchange process \\(pid ${exchange.child.pid}\\)`));
  });

  it('refuses to start on a bad variable, naming it', async () => {
    const port = await freePort();
    await expect(startService('exchange', { EXCHANGE_PORT: 'eighty', EXCHANGE_MGMT_PORT: String(port), REDIS_URL: '' }, port)).rejects.toThrow(/EXCHANGE_PORT/);
    await expect(startService('exchange', { EXCHANGE_PORT: String(port), BOOK_MAX_AGE_MS: '-5', REDIS_URL: '' }, port)).rejects.toThrow(/BOOK_MAX_AGE_MS/);
  });
});

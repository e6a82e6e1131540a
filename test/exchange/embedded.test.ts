/**
 * The exchange on embedded defaults (no REDIS_URL, no NATS_URL): in-memory ledger with a
 * warning, synthetic books; and a bad variable stops the process naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, type ServiceProcess } from '../support/servers.ts';
import { client, ISO, PRICE8, type Client } from './support.ts';

let exchange: ServiceProcess;
let api: Client;

beforeAll(async () => {
  const [port, mgmtPort] = [await freePort(), await freePort()];
  exchange = await startService('exchange', { EXCHANGE_PORT: String(port), EXCHANGE_MGMT_PORT: String(mgmtPort), REDIS_URL: '', NATS_URL: '', EXCHANGE_FEED: '' }, mgmtPort);
  api = client(`http://127.0.0.1:${port}`);
});
afterAll(async () => {
  await exchange?.stop();
});

describe('embedded defaults', () => {
  it('warns that the ledger is in memory', () => {
    expect(exchange.output()).toContain('REDIS_URL is not set');
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

  it('refuses to start on a bad variable, naming it', async () => {
    const port = await freePort();
    await expect(startService('exchange', { EXCHANGE_PORT: 'eighty', EXCHANGE_MGMT_PORT: String(port), REDIS_URL: '' }, port)).rejects.toThrow(/EXCHANGE_PORT/);
    await expect(startService('exchange', { EXCHANGE_PORT: String(port), BOOK_MAX_AGE_MS: '-5', REDIS_URL: '' }, port)).rejects.toThrow(/BOOK_MAX_AGE_MS/);
  });
});

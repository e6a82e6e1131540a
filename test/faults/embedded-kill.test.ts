/**
 * `npm start` on embedded defaults killed with SIGKILL right after a bet (the embedded default
 * survives kill -9 like the Redis setup: docs/operations.md#recover): after a restart on the same
 * DATA_DIR the bet settles within seconds, at the price of the last tick at or before its expiry
 * (the price history and the event log were kept in DATA_DIR), not by the 300 s refund; a client
 * resuming with `?since=` gets its bet_open and bet_closed once, and the bet history (in the same
 * journal as the snapshots) shows the bet closed with the event's outcome and the transactions of
 * both ends.
 */
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { call } from '../support/gateway-stack.ts';
import { freePort, startService, type ServiceProcess } from '../support/servers.ts';
import { ResumingClient, sleep } from '../support/fault-world.ts';
import { tempDir } from '../support/temp-dir.ts';

let stack: ServiceProcess | undefined;
const dataDir = tempDir('embedded-kill-');
afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('settles a bet caught by SIGKILL at the right price after the restart', async () => {
  const ports = { GATEWAY_PORT: await freePort(), EXCHANGE_PORT: await freePort(), EXCHANGE_MGMT_PORT: await freePort(), CHAIN_PORT: await freePort() };
  const env = {
    DATA_DIR: dataDir,
    GW_EXPIRY_SECONDS: '4',
    SMART_SETTLE_INTERVAL_MS: '200',
    NATS_URL: '',
    REDIS_URL: '',
    SOLANA_RPC_URL: '',
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
  };
  const start = () => startService('start', env, ports.EXCHANGE_MGMT_PORT, 120_000);
  const gw = `http://127.0.0.1:${ports.GATEWAY_PORT}`;
  stack = await start();
  const client = new ResumingClient(`ws://127.0.0.1:${ports.GATEWAY_PORT}/api/ws`);
  await expect.poll(async () => (await call(gw, 'GET', '/api/price')).status, { timeout: 15_000 }).toBe(200);
  const { address } = (await call(gw, 'POST', '/api/wallet', {})).body;
  expect((await call(gw, 'GET', `/api/faucet/${address}`)).status).toBe(200);
  await sleep(1_500); // a few ticks
  const bet = await call(gw, 'POST', '/api/bet', { address, side: 'UP', amountUnits: '100000000' });
  expect(bet.status).toBe(200);
  await sleep(300);
  await stack.stop('SIGKILL');
  await sleep(1_000);
  stack = await start();
  const restarted = Date.now();

  await expect.poll(() => client.events.some((e) => e.type === 'bet_closed' && e.id === bet.body.id), { timeout: 30_000, interval: 200 }).toBe(true);
  expect(Date.now() - restarted).toBeLessThan(30_000); // not the 300 s refund
  const opened = client.events.filter((e) => e.type === 'bet_open' && e.id === bet.body.id);
  const closed = client.events.filter((e) => e.type === 'bet_closed' && e.id === bet.body.id);
  expect(opened).toHaveLength(1);
  expect(closed).toHaveLength(1);
  // the exit price is the last tick at or before expiry, among all the ticks the client saw (before and after the kill)
  const expiryMs = Number(opened[0].expireTime) * 1000;
  const ticks = client.events.filter((e) => e.type === 'price' && e.ts <= expiryMs).sort((a, b) => a.ts - b.ts);
  const last = ticks.at(-1);
  expect(last).toBeDefined();
  expect(closed[0].exitPrice).toBe(Number(String(last.price).replace('.', '')));
  // the history record was committed with the close: it is there at once, never left open
  const record = await call(gw, 'GET', `/api/bets/${bet.body.id}`);
  expect(record.status).toBe(200);
  expect(record.body).toMatchObject({ id: bet.body.id, status: closed[0].status, exitPrice: closed[0].exitPrice });
  expect(record.body.evidence).toMatchObject({ placeTx: bet.body.tx, closeTx: expect.any(String) });
  client.close();
}, 240_000);

/**
 * Profile A around the contract's life and the gateway's guards, black box: with GW_INIT=off the
 * contract stays uninitialised (`/state` 409 `{error}`, bets 409), a restart with GW_INIT=on
 * initialises it with the GW_* parameters (docs/operations.md#processes); the admin route is 404
 * without GW_ADMIN_TOKEN and 401 with a wrong token; the faucet is 403 on a chain whose genesis
 * hash is unknown (docs/gateway-api.md#faucet).
 */
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';
import { tempDir } from '../support/temp-dir.ts';

let stack: GatewayStack;
let profileB: { base: string } | undefined;
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(stack.base, method, path, body, headers);

beforeAll(async () => {
  stack = await startGatewayStack({ GW_INIT: 'off' });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

it('answers 409 {error} for /state and bets while the contract is not initialised', async () => {
  for (const path of ['/api/state', '/state']) {
    const r = await api('GET', path);
    expect(r.status).toBe(409);
    expect(Object.keys(r.body)).toEqual(['error']);
  }
  const w = await api('POST', '/api/wallet', {});
  expect(w.status).toBe(200);
  await stack.tick('150.00');
  const r = await api('POST', '/api/bet', { address: w.body.address, side: 'UP', amountUnits: '100000000' });
  expect(r.status).toBe(409);
  expect(typeof r.body.error).toBe('string');
  const pause = await api('POST', '/api/admin/pause', { paused: true }, { Authorization: 'Bearer test-admin-token' });
  expect(pause.status).toBe(409);

  // Profile B: /state 409 with only `error`; POST /bet is a 200 decision NOT_INITIALIZED (first in priority)
  profileB = await stack.extraGateway({ GW_PROFILE: 'B' });
  const s = await call(profileB.base, 'GET', '/api/state');
  expect(s.status).toBe(409);
  expect(Object.keys(s.body)).toEqual(['error']);
  const d = await call(profileB.base, 'POST', '/api/bet', { side: 'UP' });
  expect(d.status).toBe(200);
  expect(d.body).toMatchObject({ accepted: false, reasonCode: 'NOT_INITIALIZED', retryAfterSeconds: null, betId: null, txSig: null });
});

it('admin pause: 401 with a wrong or malformed token, 404 when no token is configured', async () => {
  for (const auth of ['Bearer wrong', 'test-admin-token', 'Basic dGVzdC1hZG1pbi10b2tlbg==', 'Bearer ']) {
    expect((await api('POST', '/api/admin/pause', { paused: true }, { Authorization: auth })).status).toBe(401);
  }
  const open = await stack.extraGateway({ GW_ADMIN_TOKEN: '' });
  const r = await call(open.base, 'POST', '/api/admin/pause', { paused: true }, { Authorization: 'Bearer test-admin-token' });
  expect(r.status).toBe(404);
  expect(typeof r.body.error).toBe('string');
  await open.process.stop();
});

it('refuses the faucet (403) on a chain whose genesis hash it does not know, in test mode', async () => {
  const elsewhere = tempDir('gw-unknown-chain-');
  try {
    // the same keys, but no chain info: the gateway cannot know this chain's genesis hash
    for (const file of ['relayer.json', 'admin.json', 'mint-authority.json']) copyFileSync(join(stack.dataDir, file), join(elsewhere, file));
    const gw = await stack.extraGateway({ DATA_DIR: elsewhere, REDIS_URL: '' });
    const address = (await call(gw.base, 'POST', '/api/wallet', {})).body.address as string;
    const f = await call(gw.base, 'GET', `/api/faucet/${address}`);
    expect(f.status).toBe(403);
    expect(f.body.error).toMatch(/genesis/);
    expect((await call(gw.base, 'GET', '/api/faucet/not-an-address')).status).toBe(400);
    await gw.process.stop();
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

it('initialises the contract at boot with GW_INIT=on and the GW_* parameters, then takes bets', async () => {
  await stack.restartGateway('SIGTERM', { GW_INIT: 'on', GW_MIN_AMOUNT: '200000000', GW_MULTIPLIER_BPS: '15000' });
  const s = await api('GET', '/api/state');
  expect(s.status).toBe(200);
  expect(s.body).toMatchObject({ minAmount: '200000000', maxAmount: '10000000000', multiplierBps: '15000', expirySeconds: '3', paused: 0, counter: '0' });
  const w = await api('POST', '/api/wallet', {});
  expect((await api('GET', `/api/faucet/${w.body.address}`)).status).toBe(200);
  await stack.tick('150.00');
  expect((await api('POST', '/api/bet', { address: w.body.address, side: 'UP', amountUnits: '100000000' })).status).toBe(400); // below the new minimum
  const r = await api('POST', '/api/bet', { address: w.body.address, side: 'UP', amountUnits: '200000000' });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ bettor: w.body.address, entryPrice: 15_000_000_000 });
});

it("refuses to start with a relayer (or admin) key that is not the contract's, naming the mismatch", async () => {
  const elsewhere = tempDir('gw-foreign-keys-');
  try {
    writeFileSync(join(elsewhere, 'relayer.json'), JSON.stringify(Array.from(Keypair.generate().secretKey)));
    for (const file of ['admin.json', 'mint-authority.json']) copyFileSync(join(stack.dataDir, file), join(elsewhere, file));
    await expect(stack.extraGateway({ DATA_DIR: elsewhere, REDIS_URL: '' })).rejects.toThrow(/the contract's relayer is \w+, but .*relayer\.json holds \w+/);
    writeFileSync(join(elsewhere, 'relayer.json'), readFileSync(join(stack.dataDir, 'relayer.json')));
    writeFileSync(join(elsewhere, 'admin.json'), JSON.stringify(Array.from(Keypair.generate().secretKey)));
    await expect(stack.extraGateway({ DATA_DIR: elsewhere, REDIS_URL: '' })).rejects.toThrow(/the contract's admin is \w+, but .*admin\.json holds \w+/);
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

it('Profile B: PAUSED comes before the price and the wallet checks', async () => {
  if (!profileB) throw new Error('the Profile B gateway of the first test is missing');
  const auth = { Authorization: 'Bearer test-admin-token' };
  expect((await api('POST', '/api/admin/pause', { paused: true }, auth)).status).toBe(200);
  const d = await call(profileB.base, 'POST', '/api/bet', { side: 'down' }); // its bettor is unfunded: PAUSED wins
  expect(d.body).toMatchObject({ accepted: false, reasonCode: 'PAUSED', retryAfterSeconds: null });
  const s = await call(profileB.base, 'GET', '/api/state');
  expect(s.body).toMatchObject({ paused: 1, canBet: false, canBetReasonCode: 'PAUSED', canBetReason: d.body.reason });
  expect((await api('POST', '/api/admin/pause', { paused: false }, auth)).status).toBe(200);
  expect((await call(profileB.base, 'POST', '/api/bet', { side: 'down' })).body.reasonCode).toBe('INSUFFICIENT_SOL');
});

it('chain unreachable: POST /bet answers 500 (its contract says so), reads 503, all with Retry-After and an error naming the chain; prices go on', async () => {
  await stack.chain.stop();
  await stack.tick('150.00');
  // reads come from the chain mirror: they stop answering once its subscriptions have been down for a moment
  await expect.poll(async () => (await api('GET', '/api/state')).status, { timeout: 5_000 }).toBe(503);
  for (const [method, path, body, status] of [
    ['GET', '/api/state', undefined, 503],
    ['GET', '/api/balance/GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ', undefined, 503],
    ['POST', '/api/bet', { address: 'GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ', side: 'UP', amountUnits: '200000000' }, 500],
  ] as const) {
    const started = Date.now();
    const r = await api(method, path, body);
    expect(r.status, path).toBe(status);
    expect(r.body.error, path).toMatch(/chain/);
    expect(r.headers.get('retry-after'), path).toBe('2');
    expect(Date.now() - started, path).toBeLessThan(3_000);
  }
  expect((await api('GET', '/api/price')).status).toBe(200);
});

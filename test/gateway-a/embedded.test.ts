/**
 * The gateway on embedded defaults (docs/operations.md#run): no SOLANA_RPC_URL (the local chain
 * runs in-process over DATA_DIR), no REDIS_URL (stores in DATA_DIR files, with a warning), no NATS_URL
 * (synthetic prices). A bet goes through and settles; a bad variable stops the boot naming it.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, EventClient } from '../support/gateway-stack.ts';
import { freePort, startService, type ServiceProcess } from '../support/servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../support/temp-dir.ts';

let gateway: ServiceProcess;
let base: string;
const dataDir = tempDir('gw-embedded-');
const embeddedEnv = { DATA_DIR: dataDir, REDIS_URL: '', NATS_URL: '', SOLANA_RPC_URL: '', GW_EXPIRY_SECONDS: '2', SMART_SETTLE_INTERVAL_MS: '200' };

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gateway = await startService('gateway', { ...embeddedEnv, GATEWAY_PORT: String(port) }, port, 120_000);
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('says what it runs on', async () => {
  // the port opens a moment before the last lines have come through the pipe
  await expect.poll(() => gateway.output(), { timeout: 10_000 }).toContain('gateway listening');
  const out = gateway.output();
  expect(out).toContain('SOLANA_RPC_URL unset');
  expect(out).toContain('REDIS_URL unset');
  expect(out).toContain('prices are synthetic');
});

it('takes a bet on synthetic prices and settles it on the embedded chain', async () => {
  const ws = new EventClient(base.replace('http', 'ws') + '/api/ws');
  await ws.opened;
  for (let i = 0; i < 100 && (await call(base, 'GET', '/api/price')).status !== 200; i++) await sleep(100);
  expect((await call(base, 'GET', '/api/state')).body).toMatchObject({ expirySeconds: '2', paused: 0 });
  const { address } = (await call(base, 'POST', '/api/wallet', {})).body as { address: string };
  expect((await call(base, 'GET', `/api/faucet/${address}`)).status).toBe(200);
  const r = await call(base, 'POST', '/api/bet', { address, side: 'UP', amountUnits: '100000000' });
  expect(r.status).toBe(200);
  const closed = await ws.waitFor((e) => e.type === 'bet_closed' && e.id === r.body.id, 20_000);
  expect([1, 2, 3]).toContain(closed.status);
  const payout = { 1: 130_000_000n, 2: 0n, 3: 100_000_000n }[closed.status as 1 | 2 | 3];
  expect(BigInt((await call(base, 'GET', `/api/balance/${address}`)).body.tokenUnits)).toBe(10_000_000_000n - 100_000_000n + payout);
  ws.close();
});

it('refuses to boot on a bad variable, naming it', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/gateway.ts'], {
    env: { ...process.env, ...embeddedEnv, GW_PROFILE: 'C' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status).toBe(1);
  expect(run.stdout + run.stderr).toContain('GW_PROFILE');
});

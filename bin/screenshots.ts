/**
 * `npm run screenshots`: writes docs/gateway.png and docs/exchange.png from the live pages. Starts
 * a gateway (embedded chain, synthetic prices, 5 s windows) and an exchange (synthetic books) on
 * free ports over a scratch DATA_DIR, drives each page in headless Chromium as a user would (a
 * wallet, the faucet, a settled bet and an open one; an account, a deposit, two orders), then
 * stops everything.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const OUT_DIR = 'docs';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => (s.destroy(), resolve(false)));
  });

/** Starts `bin/<script>.ts` with `env` and waits until `port` answers. */
async function service(script: string, env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', `bin/${script}.ts`], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 120_000;
  while (!(await portOpen(port))) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${script} did not listen on ${port}`);
    await sleep(200);
  }
  return child;
}

/** Polls `check` until it is true (or throws after `ms`). */
async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const testId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

async function gatewayShot(page: Page, base: string): Promise<void> {
  await page.goto(base + '/');
  await until('the gateway page', async () => (await page.locator('body').getAttribute('data-ready')) === 'true');
  await testId(page, 'new-wallet').click();
  await until('a wallet', async () => Boolean(await testId(page, 'wallet').getAttribute('data-address')));
  await testId(page, 'faucet').click();
  await until('the faucet', async () => (await testId(page, 'faucet').getAttribute('data-funded')) === 'true');
  await testId(page, 'bet-up').click();
  const row = testId(page, 'history').locator('[data-testid="history-row"]').first();
  await until('the first bet to settle', async () => !['open', null].includes(await row.getAttribute('data-status')));
  await sleep(8_000); // more price on the chart
  await testId(page, 'bet-down').click();
  await until('the second bet', async () => (await testId(page, 'history').locator('[data-testid="history-row"]').count()) === 2);
  await testId(page, 'history').locator('[data-testid="evidence"]').last().locator('summary').click();
  await sleep(1_500);
  await page.screenshot({ path: join(OUT_DIR, 'gateway.png'), fullPage: true });
}

async function exchangeShot(page: Page, base: string): Promise<void> {
  await page.goto(base + '/');
  await until('the exchange page', async () => (await page.locator('body').getAttribute('data-ready')) === 'true');
  await until('prices', async () => (await testId(page, 'prices').locator('tr').count()) === 3);
  await testId(page, 'account-name').fill('momentum');
  await testId(page, 'account-cash').fill('10000');
  await testId(page, 'create-account').click();
  await until('the account', async () => Boolean(await testId(page, 'selected-account').getAttribute('data-account-id')));
  const order = async (symbol: string, side: string, qty: string) => {
    await testId(page, 'order-symbol').selectOption(symbol);
    await testId(page, 'order-side').selectOption(side);
    await testId(page, 'order-qty').fill(qty);
    const before = await testId(page, 'orders').locator('tr').count();
    await testId(page, 'place-order').click();
    await until(`the ${side} ${symbol} order`, async () => (await testId(page, 'orders').locator('tr').count()) > before);
    await sleep(2_500);
  };
  await order('SOLUSDT', 'BUY', '10');
  await testId(page, 'deposit-amount').fill('2500');
  await testId(page, 'deposit').click();
  await sleep(2_500);
  await order('BTCUSDT', 'BUY', '0.02');
  await order('ETHUSDT', 'BUY', '0.5');
  await order('SOLUSDT', 'SELL', '4');
  await sleep(4_000);
  await page.screenshot({ path: join(OUT_DIR, 'exchange.png'), fullPage: true });
}

const dataDir = mkdtempSync(join(tmpdir(), 'screenshots-'));
const children: ChildProcess[] = [];
const browser = await launchChromium();
try {
  mkdirSync(OUT_DIR, { recursive: true });
  const [gwPort, exPort, mgmtPort] = [await freePort(), await freePort(), await freePort()];
  const common = { REDIS_URL: '', NATS_URL: '' };
  children.push(
    await service(
      'gateway',
      {
        ...common,
        DATA_DIR: join(dataDir, 'gateway'),
        SOLANA_RPC_URL: '',
        GATEWAY_PORT: String(gwPort),
        GW_EXPIRY_SECONDS: '5',
        SMART_SETTLE_INTERVAL_MS: '500',
        SMART_MODE: 'test',
      },
      gwPort,
    ),
  );
  children.push(
    await service(
      'exchange',
      { ...common, DATA_DIR: join(dataDir, 'exchange'), EXCHANGE_FEED: 'synthetic', EXCHANGE_PORT: String(exPort), EXCHANGE_MGMT_PORT: String(mgmtPort) },
      mgmtPort,
    ),
  );
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
  await gatewayShot(page, `http://127.0.0.1:${gwPort}`);
  await exchangeShot(page, `http://127.0.0.1:${exPort}`);
  console.log(`wrote ${join(OUT_DIR, 'gateway.png')} and ${join(OUT_DIR, 'exchange.png')}`);
} finally {
  await browser.close();
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)))));
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * The exchange's live page in a real headless Chromium against a real exchange process
 * (synthetic books, ledger in a fresh DATA_DIR): create an account, deposit, place a market order,
 * and see the position, the PnL and the equity curve.
 */
import { rmSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser, pageErrors } from '../support/browser.ts';
import { freePort, startService, type ServiceProcess } from '../support/servers.ts';
import { tempDir } from '../support/temp-dir.ts';

let exchange: ServiceProcess;
let browser: Browser;
let page: Page;
let errors: string[] = [];
let base = '';
const dataDir = tempDir('exchange-page-');

beforeAll(async () => {
  const [port, mgmt] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  const env = {
    EXCHANGE_PORT: String(port),
    EXCHANGE_MGMT_PORT: String(mgmt),
    DATA_DIR: dataDir,
    REDIS_URL: '',
    NATS_URL: '',
    EXCHANGE_FEED: 'synthetic',
    LOG_LEVEL: 'warn',
  };
  [exchange, browser] = await Promise.all([startService('exchange', env, mgmt, 60_000), launchBrowser()]);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  errors = pageErrors(page);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await exchange?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const testId = (id: string) => page.locator(`[data-testid="${id}"]`);

it('serves the page at / next to the API', async () => {
  const root = await fetch(base + '/');
  expect(root.status).toBe(200);
  expect(root.headers.get('content-type')).toMatch(/^text\/html/);
  expect((await fetch(base + '/ui/nope.css')).status).toBe(404);
  expect((await fetch(base + '/api/v1/accounts')).status).toBe(200);
});

it('creates an account, deposits, buys at market, and shows the position, PnL and equity curve', async () => {
  await page.goto(base + '/');
  await expect.poll(() => page.locator('body').getAttribute('data-ready'), { timeout: 20_000 }).toBe('true');
  await expect.poll(() => testId('prices').locator('tr').count(), { timeout: 15_000 }).toBe(3);

  await testId('account-name').fill('page-trader');
  await testId('account-cash').fill('10000');
  await testId('create-account').click();
  await expect.poll(() => testId('selected-account').getAttribute('data-account-id'), { timeout: 10_000 }).toMatch(/^[0-9a-f-]{36}$/);
  const id = (await testId('selected-account').getAttribute('data-account-id')) as string;
  await expect.poll(() => testId('accounts').locator(`[data-account-id="${id}"]`).count(), { timeout: 10_000 }).toBe(1);

  await testId('deposit-amount').fill('500');
  await testId('deposit').click();
  await expect.poll(() => testId('deposit-result').textContent(), { timeout: 10_000 }).toContain('deposited 500.00');

  await testId('order-form').locator('[data-testid="order-symbol"]').selectOption('SOLUSDT');
  await testId('order-side').selectOption('BUY');
  await testId('order-qty').fill('2');
  await testId('place-order').click();
  await expect.poll(() => testId('order-result').getAttribute('data-status'), { timeout: 10_000 }).toMatch(/^(FILLED|PARTIALLY_FILLED)$/);

  const position = testId('positions').locator('[data-testid="position-row"][data-symbol="SOLUSDT"]');
  await expect.poll(() => position.getAttribute('data-qty'), { timeout: 10_000 }).toMatch(/^[1-9]\d*\.\d+$|^0\.\d*[1-9]/);
  await expect.poll(() => testId('orders').locator('[data-testid="order-row"]').count(), { timeout: 10_000 }).toBe(1);
  expect(await testId('pnl').locator('[data-field="netDeposits"]').getAttribute('title')).toBe('500.0000000000');
  expect(Number(await testId('pnl').getAttribute('data-equity'))).toBeGreaterThan(10_000);
  // the curve: creation, deposit, trade, and the live point
  await expect(testId('equity-chart').locator('canvas').count()).resolves.toBeGreaterThan(0);
  await expect.poll(async () => Number(await testId('equity-chart').getAttribute('data-points')), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
});

it('says why an order is refused', async () => {
  await testId('order-side').selectOption('SELL');
  await testId('order-symbol').selectOption('BTCUSDT');
  await testId('order-qty').fill('1');
  await testId('place-order').click();
  await expect.poll(() => testId('order-result').getAttribute('data-status'), { timeout: 10_000 }).toBe('INSUFFICIENT_POSITION');
});

it('raised no error in the page', () => {
  // the refused order's 409 is the expected answer
  expect(errors.filter((e) => !/^409 POST \/api\/v1\/accounts\/[^/]+\/orders$/.test(e))).toEqual([]);
});

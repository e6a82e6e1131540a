/**
 * The gateway's live page in a real headless Chromium against a real gateway (embedded chain,
 * prices published by the test on NATS, 3 s bet windows): the price moves as ticks arrive, a bet
 * made from the page (new wallet, faucet, UP) settles on screen with its evidence, verified in the
 * browser from the signed ticks (the test's ticks are signed by a price signer of its own; evidence a
 * gateway altered fails the check), and a dropped socket resumes with `?since=` and says so,
 * without repeating or losing events.
 */
import { rmSync } from 'node:fs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser, pageErrors } from '../support/browser.ts';
import { freePort, startNatsServer, startService, type RunningServer, type ServiceProcess } from '../support/servers.ts';
import { Keypair } from '@solana/web3.js';
import { memorySeqStore, PriceSigner } from '../../adapters/feed/price-signer.ts';
import { encodePriceTick, PRICE_SUBJECT } from '../../adapters/feed/messages.ts';
import { tempDir } from '../support/temp-dir.ts';
import { BASE58_ADDRESS } from '../../kernel/schemas.ts';

let nats: RunningServer;
let bus: NatsConnection;
let gateway: ServiceProcess;
let gatewayB: ServiceProcess;
let baseB = '';
let browser: Browser;
let page: Page;
let errors: string[] = [];
let base = '';
let ticker: NodeJS.Timeout | undefined;
let price = 150;
const dataDir = tempDir('gw-page-');
const dataDirB = tempDir('gw-page-b-');

const signer = new PriceSigner(Keypair.generate(), memorySeqStore());
/** The id of the bet the page settled (for the check of its evidence). */
let settledId = '';

const tick = () => {
  price = Math.max(1, price + (Math.random() - 0.5) * 0.2);
  bus.publish(PRICE_SUBJECT, encodePriceTick(signer.sign({ symbol: 'solusdt', price: price.toFixed(8), ts: Date.now() })));
};

beforeAll(async () => {
  const [natsServer, port, portB] = await Promise.all([startNatsServer(), freePort(), freePort()]);
  nats = natsServer;
  bus = await connect({ servers: nats.url });
  base = `http://127.0.0.1:${port}`;
  baseB = `http://127.0.0.1:${portB}`;
  const env = {
    DATA_DIR: dataDir,
    GATEWAY_PORT: String(port),
    NATS_URL: nats.url,
    REDIS_URL: '',
    SOLANA_RPC_URL: '',
    GW_EXPIRY_SECONDS: '3',
    SMART_SETTLE_INTERVAL_MS: '200',
    SMART_MODE: 'test',
    LOG_LEVEL: 'warn',
  };
  // another deployment (its own chain) on the same NATS: its own event stream
  const envB = { ...env, DATA_DIR: dataDirB, GATEWAY_PORT: String(portB), GW_PROFILE: 'B', GW_EVENT_STREAM: 'gw.events-b' };
  [gateway, gatewayB, browser] = await Promise.all([
    startService('gateway', env, port, 120_000),
    startService('gateway', envB, portB, 120_000),
    launchBrowser(),
  ]);
  tick();
  ticker = setInterval(tick, 250);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  errors = pageErrors(page);
}, 180_000);

afterAll(async () => {
  if (ticker) clearInterval(ticker);
  await browser?.close();
  await bus?.close().catch(() => undefined);
  await Promise.all([gateway?.stop(), gatewayB?.stop()]);
  await nats?.stop();
  for (const dir of [dataDir, dataDirB]) rmSync(dir, { recursive: true, force: true });
});

interface SignedTick {
  price: number;
  ts: number;
  seq: number;
  signature: string;
  signer: string;
}
/** The parts of `GET /api/bets/:id` the check reads. */
interface BetView {
  side: 'UP' | 'DOWN';
  entryPrice: number;
  exitPrice: number;
  expireTime: number;
  statusName: string;
  evidence: { signed: { entry: SignedTick | null; exit: [SignedTick, SignedTick] | null } };
}

const testId = (id: string) => page.locator(`[data-testid="${id}"]`);
/** The page's stream: `window.gatewayPage.stream` (its last seq; `drop()` closes the socket as a network drop would). */
const lastSeq = () => page.evaluate('window.gatewayPage.stream.lastSeq') as Promise<number>;
const dropSocket = () => page.evaluate('window.gatewayPage.stream.drop()');

it('serves the page and its assets with their content types; unknown assets are 404 JSON', async () => {
  const root = await fetch(base + '/');
  expect(root.status).toBe(200);
  expect(root.headers.get('content-type')).toMatch(/^text\/html/);
  const lib = await fetch(base + '/ui/lightweight-charts.js');
  expect(lib.headers.get('content-type')).toMatch(/^text\/javascript/);
  expect(await lib.text()).toContain('createChart');
  const wallets = await fetch(base + '/ui/wallet-standard.js');
  expect(wallets.headers.get('content-type')).toMatch(/^text\/javascript/);
  expect(await wallets.text()).toContain('export function getWallets');
  const missing = await fetch(base + '/ui/no-such-file.js');
  expect(missing.status).toBe(404);
  expect(await missing.json()).toMatchObject({ error: 'NOT_FOUND' });
  expect((await fetch(base + '/api/state')).status).toBe(200); // the API is untouched
});

it('shows the price moving as ticks arrive, on a live chart', async () => {
  await page.goto(base + '/');
  await expect.poll(() => page.locator('body').getAttribute('data-ready'), { timeout: 20_000 }).toBe('true');
  await expect.poll(() => testId('price').textContent(), { timeout: 10_000 }).toMatch(/^\d+\.\d{8}$/);
  const first = await testId('price').getAttribute('data-ts');
  await expect.poll(() => testId('price').getAttribute('data-ts'), { timeout: 10_000 }).not.toBe(first);
  await expect(testId('price-chart').locator('canvas').count()).resolves.toBeGreaterThan(0);
  await expect.poll(async () => Number(await testId('price-chart').getAttribute('data-points')), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  expect(await testId('connection').textContent()).toBe('live');
  expect(await testId('events').locator('li[data-type="price"]').count()).toBeGreaterThan(0);
});

it('makes a wallet, funds it, bets UP, and shows the bet settled with its evidence', async () => {
  await testId('new-wallet').click();
  await expect.poll(() => testId('wallet').getAttribute('data-address'), { timeout: 20_000 }).toMatch(BASE58_ADDRESS);
  const address = (await testId('wallet').getAttribute('data-address')) as string;
  await testId('faucet').click();
  await expect.poll(() => testId('faucet').getAttribute('data-funded'), { timeout: 30_000 }).toBe('true');
  await expect.poll(() => testId('balance').getAttribute('data-token-units'), { timeout: 10_000 }).toBe('10000000000');

  await testId('bet-up').click();
  const row = testId('history').locator('[data-testid="history-row"]').first();
  await expect.poll(() => row.getAttribute('data-bet-id'), { timeout: 20_000 }).toMatch(/^\d+$/);
  const id = (await row.getAttribute('data-bet-id')) as string;
  expect(await testId('bet-status').textContent()).toContain(`bet #${id} placed: UP`);
  await expect.poll(() => testId('countdown').textContent(), { timeout: 5_000 }).toContain(`#${id}`);

  // settles on screen: bet_closed from the stream (or the bets API) within the 3 s window + settlement
  await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toMatch(/^(payout_done|house_won|refunded)$/);
  const status = (await row.getAttribute('data-status')) as string;
  expect(await row.locator('[data-testid="outcome"]').textContent()).toMatch(/won|lost|refunded/);
  const evidence = row.locator('[data-testid="evidence"]');
  await evidence.locator('summary').click();
  expect(await evidence.textContent()).toMatch(/entry.*\d+\.\d{8}/s);
  expect(await evidence.textContent()).toMatch(/exit.*\d+\.\d{8}/s);
  expect(await testId('events').textContent()).toContain(`bet_closed #${id}`);
  // with the gateway's bet history the evidence is the recorded one (both transactions); without it, the feed's
  const historyApi = (await fetch(`${base}/api/bets?address=${address}&limit=1`)).status === 200;
  await expect.poll(() => testId('history-source').textContent(), { timeout: 5_000 }).toContain(historyApi ? 'bet history' : 'event feed');
  if (historyApi) await expect.poll(() => evidence.textContent(), { timeout: 10_000 }).toMatch(/close tx\s*[1-9A-HJ-NP-Za-km-z]{60,}/);
  else expect(await evidence.textContent()).toMatch(/place tx\s*[1-9A-HJ-NP-Za-km-z]{60,}/);
  // the signed ticks were checked in the browser
  if (historyApi) {
    const verdict = row.locator('[data-testid="verified"]');
    await expect.poll(() => verdict.getAttribute('data-verified'), { timeout: 10_000 }).toBe('true');
    expect(await verdict.textContent()).toContain(`verified (signer ${signer.publicKey.slice(0, 4)}`);
    settledId = id;
  }
  // the balance follows the outcome: 10000 - 100 (+130 won, +100 refunded)
  const expected = { payout_done: '10030000000', house_won: '9900000000', refunded: '10000000000' }[status];
  await expect.poll(() => testId('balance').getAttribute('data-token-units'), { timeout: 10_000 }).toBe(expected);
  expect(address.length).toBeGreaterThan(30);
});

it('checks the signed ticks in the browser: evidence a gateway altered does not verify', async () => {
  expect(settledId).not.toBe('');
  const bet = (await (await fetch(`${base}/api/bets/${settledId}`)).json()) as BetView;
  // the page's own module, in the page (a string: the test's transform must not touch the import)
  const check = (b: BetView) =>
    page.evaluate(`import('/ui/verify.js').then((m) => m.verifyBet(${JSON.stringify(b)}))`) as Promise<{ ok: boolean; why: string } | null>;
  expect(await check(bet)).toMatchObject({ ok: true });
  const [n, next] = bet.evidence.signed.exit as [SignedTick, SignedTick];
  const tampered = (f: (b: BetView) => void): BetView => {
    const copy = structuredClone(bet);
    f(copy);
    return copy;
  };
  // another exit price, the tick rewritten to match: its signature no longer holds
  const raised = Number(bet.exitPrice) + 1_000_000;
  const outcome = raised > Number(bet.entryPrice) === (bet.side === 'UP') ? 'payout_done' : 'house_won';
  expect(
    await check(
      tampered((b) => {
        b.exitPrice = raised;
        b.statusName = outcome;
        b.evidence.signed.exit = [{ ...n, price: raised }, next];
      }),
    ),
  ).toMatchObject({ ok: false, why: 'an exit tick signature does not verify' });
  // the honest ticks with another exit price
  expect(await check(tampered((b) => (b.exitPrice = raised)))).toMatchObject({ ok: false, why: 'the exit tick is not at the exit price' });
  // a later pair (the tick after the expiry as the exit tick)
  expect(await check(tampered((b) => (b.evidence.signed.exit = [next, { ...next, seq: next.seq + 1 }])))).toMatchObject({
    ok: false,
    why: 'the exit ticks do not straddle the expiry',
  });
  // the outcome flipped
  expect(await check(tampered((b) => (b.side = b.side === 'UP' ? 'DOWN' : 'UP')))).toMatchObject({ ok: false });
  // an unsigned bet has nothing to check
  expect(await check(tampered((b) => (b.evidence.signed = { entry: null, exit: null })))).toBeNull();
});

it('resumes a dropped socket from the last seq, says so, and neither repeats nor loses events', async () => {
  const before = await lastSeq();
  expect(before).toBeGreaterThan(0);
  await dropSocket();
  await expect.poll(() => testId('connection').textContent(), { timeout: 15_000 }).toMatch(/^resumed from seq \d+/);
  const from = Number(/seq (\d+)/.exec((await testId('connection').textContent()) ?? '')?.[1]);
  expect(from).toBeGreaterThanOrEqual(before);
  // live again: new ticks arrive after the resume
  const resumedAt = await lastSeq();
  await expect.poll(lastSeq, { timeout: 10_000 }).toBeGreaterThan(resumedAt);
  // every seq shown once, in order (the feed is newest first)
  const seqs = (
    await testId('events')
      .locator('li')
      .evaluateAll((items) => items.map((li) => li.getAttribute('data-seq')))
  )
    .filter(Boolean)
    .map(Number)
    .reverse();
  for (let i = 1; i < seqs.length; i++) expect(seqs[i], `seq after ${seqs[i - 1]}`).toBe((seqs[i - 1] as number) + 1);
});

it('profile B: bets for the fixed bettor, who is funded from the page', async () => {
  const bettor = ((await (await fetch(baseB + '/api/state')).json()) as { bettor: string }).bettor;
  await page.goto(baseB + '/');
  await expect.poll(() => page.locator('body').getAttribute('data-ready'), { timeout: 20_000 }).toBe('true');
  expect(await testId('wallet').getAttribute('data-address')).toBe(bettor);
  expect(await testId('new-wallet').isVisible()).toBe(false);
  expect(await testId('amount-row').isVisible()).toBe(false);
  await testId('faucet').click();
  await expect.poll(() => testId('faucet').getAttribute('data-funded'), { timeout: 30_000 }).toBe('true');
  await testId('bet-down').click();
  const row = testId('history').locator('[data-testid="history-row"]').first();
  await expect.poll(() => row.getAttribute('data-bet-id'), { timeout: 20_000 }).toMatch(/^\d+$/);
  // 30 % of 10000 tokens
  expect(await testId('bet-status').textContent()).toContain('DOWN 3000 tokens');
  await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toMatch(/^(payout_done|house_won|refunded)$/);
});

it('raised no error in the page', () => {
  // the bets API may not exist on this gateway: its 404 is the page's cue to use the feed, not an error
  expect(errors.filter((e) => !/^404 GET \/api\/bets(\/|$)/.test(e))).toEqual([]);
});

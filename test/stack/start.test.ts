/**
 * `npm start` (bin/start.ts) on embedded defaults: no REDIS_URL, no NATS_URL, a fresh data dir.
 * The whole stack answers, synthetic prices flow, and a bet goes from POST to settlement, here with
 * SIGNED_PRICES=on (docs/decisions.md#signed-prices): the contract checked the entry tick and the
 * exit pair of DATA_DIR's price signer, and every settled bet of the run verifies with
 * `npm run ops -- verify --all` from the chain and the signer's key alone (and fails against another key).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, EventClient, fetchJson } from '../support/gateway-stack.ts';
import { freePort, startService, type ServiceProcess } from '../support/servers.ts';
import { decodePriceRules } from '../../adapters/chain/price-rules.ts';
import { PRICE_RULES } from '../../adapters/chain/codec/addresses.ts';
import { readPriceSignerKey } from '../../adapters/feed/price-signer.ts';
import { Keypair } from '@solana/web3.js';
import { runOps } from '../ops/support.ts';
import { tempDir } from '../support/temp-dir.ts';

let stack: ServiceProcess;
let dataDir: string;
const ports = { gateway: 0, exchange: 0, mgmt: 0, chain: 0 };

beforeAll(async () => {
  dataDir = tempDir('start-');
  ports.gateway = await freePort();
  ports.exchange = await freePort();
  ports.mgmt = await freePort();
  ports.chain = await freePort();
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    GATEWAY_PORT: String(ports.gateway),
    EXCHANGE_PORT: String(ports.exchange),
    EXCHANGE_MGMT_PORT: String(ports.mgmt),
    CHAIN_PORT: String(ports.chain),
    GW_EXPIRY_SECONDS: '2',
    SMART_SETTLE_INTERVAL_MS: '200',
    NATS_URL: '',
    REDIS_URL: '',
    SOLANA_RPC_URL: '',
    SIGNED_PRICES: 'on',
  };
  stack = await startService('start', env, ports.exchange, 120_000);
}, 150_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('serves the gateway, the exchange, its health and the local chain', async () => {
  const gw = `http://127.0.0.1:${ports.gateway}`;
  expect((await call(gw, 'GET', '/api/state')).body).toMatchObject({ expirySeconds: '2', paused: 0, nextBetId: '1' });
  await expect.poll(async () => (await call(gw, 'GET', '/api/price')).status, { timeout: 10_000 }).toBe(200);
  expect((await fetchJson(`http://127.0.0.1:${ports.mgmt}`, 'GET', '/actuator/health')).body).toEqual({ status: 'UP' });
  await expect.poll(async () => (await call(`http://127.0.0.1:${ports.exchange}`, 'GET', '/api/v1/prices')).body.length, { timeout: 10_000 }).toBe(3);
  const rpc = await fetchJson(`http://127.0.0.1:${ports.chain}`, 'POST', '/', { jsonrpc: '2.0', id: 1, method: 'getHealth' });
  expect(rpc.body).toEqual({ jsonrpc: '2.0', id: 1, result: 'ok' });
});

it('takes a bet on synthetic prices and settles it', async () => {
  const gw = `http://127.0.0.1:${ports.gateway}`;
  const ws = new EventClient(`ws://127.0.0.1:${ports.gateway}/api/ws`);
  await ws.opened;
  const { body } = await call(gw, 'POST', '/api/wallet', {});
  expect((await call(gw, 'GET', `/api/faucet/${body.address}`)).status).toBe(200);
  const bet = await call(gw, 'POST', '/api/bet', { address: body.address, side: 'UP', amountUnits: '100000000' });
  expect(bet.status).toBe(200);
  const closed = await ws.waitFor((e) => e.type === 'bet_closed' && e.id === bet.body.id, 30_000);
  expect([1, 2, 3]).toContain(closed.status);
  const tokens = BigInt((await call(gw, 'GET', `/api/balance/${body.address}`)).body.tokenUnits);
  expect(tokens).toBe({ 1: 10_030_000_000n, 2: 9_900_000_000n, 3: 10_000_000_000n }[closed.status as 1 | 2 | 3]);
  ws.close();

  // signed prices were on: the contract trusts DATA_DIR's price signer and recorded the entry tick it verified
  const account = await fetchJson(`http://127.0.0.1:${ports.chain}`, 'POST', '/', {
    jsonrpc: '2.0',
    id: 2,
    method: 'getAccountInfo',
    params: [PRICE_RULES.toBase58(), { encoding: 'base64' }],
  });
  const rules = decodePriceRules(Buffer.from((account.body as { result: { value: { data: [string] } } }).result.value.data[0], 'base64'));
  expect(rules?.requireSigned).toBe(true);
  expect(rules?.signers.map((s) => s.key)).toEqual([readPriceSignerKey(dataDir)?.publicKey.toBase58()]);
  expect(rules?.signers[0]?.lastEntrySeq).toBeGreaterThan(0n);
});

it('every settled bet of the run verifies from the chain and the price signer key alone', async () => {
  const gw = `http://127.0.0.1:${ports.gateway}`;
  const ws = new EventClient(`ws://127.0.0.1:${ports.gateway}/api/ws`);
  await ws.opened;
  const wallets: string[] = [];
  for (let i = 0; i < 6; i++) {
    const { body } = await call(gw, 'POST', '/api/wallet', {});
    expect((await call(gw, 'GET', `/api/faucet/${body.address}`)).status).toBe(200);
    wallets.push(body.address as string);
  }
  // two rounds of six bets at once, both sides
  const ids: string[] = [];
  for (let round = 0; round < 2; round++) {
    const placed = await Promise.all(
      wallets.map((address, i) => call(gw, 'POST', '/api/bet', { address, side: i % 2 === 0 ? 'UP' : 'DOWN', amountUnits: '100000000' })),
    );
    expect(placed.map((p) => p.status)).toEqual(wallets.map(() => 200));
    const round_ = placed.map((p) => p.body.id as string);
    for (const id of round_) await ws.waitFor((e) => e.type === 'bet_closed' && e.id === id, 30_000);
    ids.push(...round_);
  }
  ws.close();

  // the evidence carries the signed ticks: the entry tick and the pair around the expiry
  const one = await call(gw, 'GET', `/api/bets/${ids[0]}`);
  const signer = readPriceSignerKey(dataDir)?.publicKey.toBase58();
  expect(one.body.evidence.signed.entry).toMatchObject({ price: one.body.entryPrice, signer });
  if (one.body.status !== 3 || one.body.evidence.exit.rule !== 'refund_no_price') {
    const [n, next] = one.body.evidence.signed.exit;
    expect(n).toMatchObject({ price: one.body.exitPrice, signer });
    expect(next.seq).toBe(n.seq + 1);
    expect(n.ts).toBeLessThanOrEqual(one.body.expireTime * 1000);
    expect(next.ts).toBeGreaterThan(one.body.expireTime * 1000);
  }

  const env = { DATA_DIR: dataDir, SOLANA_RPC_URL: `http://127.0.0.1:${ports.chain}` };
  const verified = await runOps(['verify', '--all', '--json'], env);
  expect(verified.stderr).toBe('');
  const report = verified.json() as { verified: number; failed: number; bets: Array<{ id: string; verdict: string; against: string; problems: string[] }> };
  expect(report.bets.filter((b) => b.verdict !== 'verified')).toEqual([]);
  expect(report.verified).toBe(13); // this test's twelve and the one before
  // each bettor's latest bet is still on chain (older settled ones are reclaimed): seven checked against their accounts
  expect(report.bets.filter((b) => b.against === 'chain').map((b) => b.id)).toEqual(expect.arrayContaining(ids.slice(6)));
  expect(verified.code).toBe(0);
  const single = await runOps(['verify', ids[11] as string, '--json'], env);
  expect(single.code).toBe(0);
  expect(single.json()).toMatchObject({ verified: 1, failed: 0, bets: [{ id: ids[11], verdict: 'verified', against: 'chain' }] });
  expect((await runOps(['verify', '999'], env)).code).toBe(2);

  // against a key the ticks were not signed with, every bet fails: the check is the signer's key
  const stranger = await runOps(['verify', '--all', '--json', '--signer', Keypair.generate().publicKey.toBase58()], env);
  expect(stranger.code).toBe(1);
  expect(stranger.json().failed).toBe(13);
  expect(stranger.json().bets[0].problems[0]).toContain('is not a trusted price signer');
}, 90_000);

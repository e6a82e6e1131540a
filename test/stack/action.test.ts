/**
 * Betting with one's own wallet through the Solana Action (docs/gateway-api.md#bet-with-your-wallet),
 * on `npm start` (signed prices on): players whose keys the gateway never sees ask for the action,
 * get a placement transaction the relayer has signed, sign it with their own key and send it to the
 * chain themselves, all at once. The gateway learns of those bets from the chain: each is announced
 * once (`bet_open`), settled, in the history and in the leaderboard, and verifies with `npm run ops
 * -- verify`. A transaction whose terms a player changes after the relayer signed does not land; the
 * refusals come in the Actions error shape with the Actions headers. The page's "bet with your
 * wallet" path runs in Chromium with a wallet-standard test wallet the test injects (its key stays in
 * the test, which signs and sends for it): connect, bet UP, and the bet settles on screen, verified.
 */
import { Connection, Ed25519Program, Keypair, Transaction } from '@solana/web3.js';
import { ACTIONS_CORS_HEADERS, fetchTransaction } from '@solana/actions';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser, pageErrors } from '../support/browser.ts';
import { PROGRAM_ID } from '../../program/index.ts';
import { call, EventClient, fetchJson } from '../support/gateway-stack.ts';
import { startWholeStack, type WholeStack } from '../support/whole-stack.ts';
import { runOps } from '../ops/support.ts';
import { signBytes } from '../../adapters/chain/signing.ts';
import { eventually } from '../support/eventually.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** players betting through the action at once */
const PLAYERS = 40;
/** the stake, in tokens, and in base units */
const STAKE = '150.5';
const STAKE_UNITS = 150_500_000n;
/** how soon after landing a wallet's bet is announced: the settler's grace for bets without an actor (2 s) and a run or two */
const ANNOUNCED_WITHIN_MS = 4_000;

let stack: WholeStack;
let dataDir: string;
let gw = '';
let chainUrl = '';
const players = Array.from({ length: PLAYERS }, () => Keypair.generate());

beforeAll(async () => {
  stack = await startWholeStack({ GW_EXPIRY_SECONDS: '8', SIGNED_PRICES: 'on', GW_ADMIN_TOKEN: 'action-admin' });
  dataDir = stack.dataDir;
  gw = stack.gateway;
  chainUrl = stack.chainUrl;
  await eventually('a price at the gateway', async () => ((await call(gw, 'GET', '/api/price')).status === 200 ? true : null), 15_000, 100);
  // the players' own wallets, funded by the test faucet (their keys stay here)
  const granted = await Promise.all(players.map((p) => call(gw, 'GET', `/api/faucet/${p.publicKey.toBase58()}`)));
  expect(granted.map((g) => g.status)).toEqual(players.map(() => 200));
}, 180_000);

let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** The headers every Actions answer carries. */
function expectActionHeaders(headers: Headers): void {
  expect(headers.get('access-control-allow-origin')).toBe('*');
  expect(headers.get('x-action-version')).toBe('2.4');
  expect(headers.get('x-blockchain-ids')).toMatch(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/);
  expect(headers.get('access-control-expose-headers')).toBe('X-Action-Version, X-Blockchain-Ids');
}

const askFor = (account: string, side: string, amount: string) => call(gw, 'POST', `/api/actions/bet?side=${side}&amount=${amount}`, { account });

it('describes the action: an UP and a DOWN action with an amount within the limits, an icon, the Actions headers and rules', async () => {
  const got = await call(gw, 'GET', '/api/actions/bet');
  expect(got.status).toBe(200);
  expectActionHeaders(got.headers);
  const state = (await call(gw, 'GET', '/api/state')).body;
  const limits = { min: Number(state.minAmount) / 1e6, max: Number(state.maxAmount) / 1e6 };
  expect(got.body).toMatchObject({ type: 'action', title: 'SOL UP or DOWN in 8 s', label: 'Bet' });
  expect(got.body.disabled).toBeUndefined();
  expect(got.body.links.actions).toEqual(
    ['UP', 'DOWN'].map((side) => ({
      type: 'transaction',
      label: side,
      href: `/api/actions/bet?side=${side}&amount={amount}`,
      parameters: [expect.objectContaining({ type: 'number', name: 'amount', required: true, ...limits })],
    })),
  );
  const icon = await fetch(got.body.icon);
  expect(icon.status).toBe(200);
  expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  expect(await icon.text()).toContain('<svg');

  const preflight = await fetch(`${gw}/api/actions/bet`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://wallet.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type,x-accept-action-version',
    },
  });
  expect(preflight.status).toBeLessThan(300);
  expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  expect(preflight.headers.get('access-control-allow-methods')).toMatch(/GET.*POST.*OPTIONS/);
  expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Accept-Action-Version/);

  const rules = await call(gw, 'GET', '/actions.json');
  expect(rules.body).toEqual({ rules: [{ pathPattern: '/api/actions/**', apiPath: '/api/actions/**' }] });
  expectActionHeaders(rules.headers);
});

it(`${PLAYERS} wallets bet through the action at once: each bet is announced once, settled, in the history and the leaderboard, and verifies`, async () => {
  const ws = new EventClient(gw.replace('http', 'ws') + '/api/ws');
  await ws.opened;
  const conn = new Connection(chainUrl, 'confirmed');
  const before = await Promise.all(players.map(async (p) => BigInt((await call(gw, 'GET', `/api/balance/${p.publicKey.toBase58()}`)).body.tokenUnits)));

  const answers = await Promise.all(players.map((p, i) => askFor(p.publicKey.toBase58(), i % 2 === 0 ? 'UP' : 'DOWN', STAKE)));
  expect(answers.map((a) => a.status)).toEqual(players.map(() => 200));
  const state = (await call(gw, 'GET', '/api/state')).body;
  const sent = await Promise.all(
    answers.map(async (a, i) => {
      const player = players[i]!;
      expectActionHeaders(a.headers);
      expect(a.body.message).toMatch(new RegExp(`^${i % 2 === 0 ? 'UP' : 'DOWN'} on SOL at \\d+(\\.\\d+)? USD with 150\\.500000 tokens`));
      const tx = Transaction.from(Buffer.from(a.body.transaction as string, 'base64'));
      // the player pays the fee and signs; the relayer signed already, over exactly these terms
      expect(tx.feePayer?.toBase58()).toBe(player.publicKey.toBase58());
      expect(tx.signatures.find((s) => s.publicKey.equals(player.publicKey))?.signature).toBeNull();
      const signedBy = tx.signatures.filter((s) => s.signature !== null).map((s) => s.publicKey.toBase58());
      expect(signedBy).toEqual([state.relayer]);
      expect(tx.verifySignatures(false)).toBe(true);
      // the entry tick comes verified by the Ed25519 program, then the placement
      expect(tx.instructions.map((ix) => ix.programId.toBase58())).toEqual([Ed25519Program.programId.toBase58(), PROGRAM_ID.toBase58()]);
      tx.partialSign(player);
      if (i === 0) {
        // its cost, for docs/decisions.md#what-it-costs: the bytes on the wire and the compute units a simulation uses
        const bytes = tx.serialize().length;
        const sim = await conn.simulateTransaction(tx);
        expect(sim.value.err).toBeNull();
        expect(bytes).toBeLessThanOrEqual(1_232);
        console.log(`an Action's placement: ${bytes} bytes, ${sim.value.unitsConsumed} compute units`);
      }
      return conn.sendRawTransaction(tx.serialize());
    }),
  );
  for (const sig of sent)
    await expect.poll(async () => (await conn.getSignatureStatus(sig)).value?.confirmationStatus ?? null, { timeout: 20_000 }).toBeTruthy();
  for (const sig of sent) expect((await conn.getSignatureStatus(sig)).value?.err).toBeNull();

  // announced from the chain soon after they land (well before their expiry, 8 s on), once each, then settled
  const mine = new Set(players.map((p) => p.publicKey.toBase58()));
  const opens = await (async () => {
    await expect.poll(() => ws.events.filter((e) => e.type === 'bet_open' && mine.has(e.bettor)).length, { timeout: ANNOUNCED_WITHIN_MS }).toBe(PLAYERS);
    return ws.events.filter((e) => e.type === 'bet_open' && mine.has(e.bettor));
  })();
  expect(new Set(opens.map((e) => e.bettor)).size).toBe(PLAYERS);
  for (const open of opens) expect(open).toMatchObject({ amountUnits: STAKE_UNITS.toString() });
  const ids = opens.map((e) => String(e.id));
  await expect.poll(() => ids.filter((id) => ws.events.some((e) => e.type === 'bet_closed' && String(e.id) === id)).length, { timeout: 30_000 }).toBe(PLAYERS);
  await sleep(500);
  expect(ws.events.filter((e) => e.type === 'bet_open' && mine.has(e.bettor))).toHaveLength(PLAYERS);
  expect(ws.events.filter((e) => e.type === 'bet_closed' && ids.includes(String(e.id)))).toHaveLength(PLAYERS);
  ws.close();

  // the tokens moved as the statuses say, and each bet is in the history with the player's own transaction
  const payout = { 1: (STAKE_UNITS * BigInt(state.multiplierBps)) / 10_000n, 2: 0n, 3: STAKE_UNITS } as const;
  for (const [i, p] of players.entries()) {
    const id = ids[opens.findIndex((e) => e.bettor === p.publicKey.toBase58())]!;
    const record = await call(gw, 'GET', `/api/bets/${id}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ bettor: p.publicKey.toBase58(), amountUnits: STAKE_UNITS.toString(), side: i % 2 === 0 ? 'UP' : 'DOWN' });
    expect(sent).toContain(record.body.evidence.placeTx);
    const after = BigInt((await call(gw, 'GET', `/api/balance/${p.publicKey.toBase58()}`)).body.tokenUnits);
    expect(after).toBe(before[i]! - STAKE_UNITS + payout[record.body.status as 1 | 2 | 3]);
  }
  const board = await call(gw, 'GET', '/api/leaderboard?window=24h');
  const listed = new Set((board.body as Array<{ address: string }>).map((e) => e.address));
  for (const p of players) expect(listed.has(p.publicKey.toBase58())).toBe(true);

  // every one of them verifies from the chain and the price signer's key
  const verified = await runOps(['verify', '--all', '--json'], { DATA_DIR: dataDir, SOLANA_RPC_URL: chainUrl });
  const report = verified.json() as { bets: Array<{ id: string; verdict: string; problems: string[] }> };
  expect(report.bets.filter((b) => ids.includes(b.id) && b.verdict !== 'verified')).toEqual([]);
  expect(report.bets.filter((b) => ids.includes(b.id))).toHaveLength(PLAYERS);
}, 120_000);

it('a transaction whose side or amount the player changed after the relayer signed does not land', async () => {
  const player = players[0]!;
  const conn = new Connection(chainUrl, 'confirmed');
  const got = await askFor(player.publicKey.toBase58(), 'UP', STAKE);
  expect(got.status).toBe(200);
  for (const change of ['side', 'amount'] as const) {
    const tx = Transaction.from(Buffer.from(got.body.transaction as string, 'base64'));
    const place = tx.instructions[tx.instructions.length - 1]!;
    // place_bet data: [discriminator 8][side 1][amount u64]...
    if (change === 'side') place.data[8] = 1;
    else place.data.writeBigUInt64LE(100_000_000n, 9);
    tx.partialSign(player);
    await expect(conn.sendRawTransaction(tx.serialize({ verifySignatures: false }))).rejects.toThrow(/signature/i);
  }
  const state = await call(gw, 'GET', `/api/balance/${player.publicKey.toBase58()}`);
  expect(state.status).toBe(200);
});

it("a client this project did not write (@solana/actions) takes the transaction; with the bettor's signature stripped or another key's in its place it does not land", async () => {
  const player = players[3]!;
  const attacker = Keypair.generate();
  const conn = new Connection(chainUrl, 'confirmed');
  const tokensOf = async () => BigInt((await call(gw, 'GET', `/api/balance/${player.publicKey.toBase58()}`)).body.tokenUnits);
  await expect.poll(async () => (await askFor(player.publicKey.toBase58(), 'UP', '100')).status, { timeout: 20_000 }).toBe(200); // its earlier bet closed

  // the headers the library's servers send are all allowed by ours
  const preflight = await fetch(`${gw}/api/actions/bet`, { method: 'OPTIONS' });
  const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').split(/,\s*/).map((h) => h.toLowerCase());
  for (const h of (ACTIONS_CORS_HEADERS['Access-Control-Allow-Headers'] ?? '').split(/,\s*/)) expect(allowed).toContain(h.toLowerCase());

  // the library's client checks the POST answer: the fee payer first, every signature but the account's present and valid
  const get = await call(gw, 'GET', '/api/actions/bet');
  const href = (get.body.links.actions[1].href as string).replace('{amount}', '110');
  const fetched = await fetchTransaction(conn, new URL(href, gw).toString(), { account: player.publicKey.toBase58() });
  expect(fetched.message).toMatch(/^DOWN on SOL at .* with 110\.000000 tokens/);
  const before = await tokensOf();

  // stripped: the bettor's signature slot left empty
  const stripped = Transaction.from(fetched.transaction.serialize({ requireAllSignatures: false, verifySignatures: false }));
  await expect(conn.sendRawTransaction(stripped.serialize({ requireAllSignatures: false, verifySignatures: false }))).rejects.toThrow(/signature/i);
  // another key signs in the bettor's place (the POST asks for no credential: anyone can ask for the player's transaction)
  const foreign = Transaction.from(fetched.transaction.serialize({ requireAllSignatures: false, verifySignatures: false }));
  foreign.addSignature(player.publicKey, Buffer.from(signBytes(attacker, foreign.serializeMessage())));
  await expect(conn.sendRawTransaction(foreign.serialize({ requireAllSignatures: false, verifySignatures: false }))).rejects.toThrow(/signature/i);
  expect(await tokensOf()).toBe(before);

  // the player's own signature: it lands
  fetched.transaction.partialSign(player);
  const sig = await conn.sendRawTransaction(fetched.transaction.serialize());
  await expect.poll(async () => (await conn.getSignatureStatus(sig)).value?.confirmationStatus ?? null, { timeout: 20_000 }).toBeTruthy();
  expect((await conn.getSignatureStatus(sig)).value?.err).toBeNull();
  expect(await tokensOf()).toBe(before - 110_000_000n);
});

it('refuses in the Actions error shape: a bad account, side or amount, amounts outside the limits, too few tokens, an open bet, and while paused', async () => {
  const player = players[1]!;
  const address = player.publicKey.toBase58();
  const stranger = Keypair.generate().publicKey.toBase58(); // never funded
  const cases: Array<[string, () => Promise<{ status: number; body: any; headers: Headers }>, number, RegExp]> = [
    ['no account', () => call(gw, 'POST', '/api/actions/bet?side=UP&amount=100', {}), 400, /account/],
    ['a bad account', () => askFor('not-a-key', 'UP', '100'), 400, /account/],
    ['a bad side', () => askFor(address, 'SIDEWAYS', '100'), 400, /side/],
    ['no amount', () => call(gw, 'POST', '/api/actions/bet?side=UP', { account: address }), 400, /amount/],
    ['a negative amount', () => askFor(address, 'UP', '-1'), 400, /amount/],
    ['too many decimals', () => askFor(address, 'UP', '100.0000001'), 400, /amount/],
    ['zero', () => askFor(address, 'UP', '0'), 400, /amount/],
    ['above the maximum', () => askFor(address, 'UP', '100000000'), 400, /between .* tokens/],
    ['no tokens', () => askFor(stranger, 'UP', '100'), 400, /holds 0\.000000 tokens/],
  ];
  for (const [what, ask, status, message] of cases) {
    const got = await ask();
    expect(got.status, what).toBe(status);
    expect(got.body.message, what).toMatch(message);
    expect(got.body.error, what).toBe(got.body.message);
    expectActionHeaders(got.headers);
  }

  // an open bet: placed through the action, then asked again
  const conn = new Connection(chainUrl, 'confirmed');
  const first = await askFor(address, 'DOWN', '100');
  expect(first.status).toBe(200);
  const tx = Transaction.from(Buffer.from(first.body.transaction as string, 'base64'));
  tx.partialSign(player);
  const sig = await conn.sendRawTransaction(tx.serialize());
  await expect.poll(async () => (await conn.getSignatureStatus(sig)).value?.confirmationStatus ?? null, { timeout: 20_000 }).toBeTruthy();
  await expect.poll(async () => (await askFor(address, 'UP', '100')).status, { timeout: 5_000 }).toBe(409);
  const open = await askFor(address, 'UP', '100');
  expect(open.body).toMatchObject({ message: expect.stringMatching(/open bet/), openBetId: expect.stringMatching(/^\d+$/) });

  // paused: the action is disabled with the reason, and a POST is refused
  const pause = (paused: boolean) => fetchJson(gw, 'POST', '/api/admin/pause', { paused }, { Authorization: 'Bearer action-admin' });
  expect((await pause(true)).status).toBe(200);
  try {
    await expect.poll(async () => (await call(gw, 'GET', '/api/actions/bet')).body.disabled, { timeout: 5_000 }).toBe(true);
    expect((await call(gw, 'GET', '/api/actions/bet')).body.error).toEqual({ message: 'bets are paused' });
    const refused = await askFor(players[2]!.publicKey.toBase58(), 'UP', '100');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('bets are paused');
  } finally {
    expect((await pause(false)).status).toBe(200);
  }
  await expect.poll(async () => (await call(gw, 'GET', '/api/actions/bet')).body.disabled, { timeout: 5_000 }).toBeUndefined();
});

/**
 * A wallet-standard wallet for the page (what a browser extension registers): one account, connect,
 * and signAndSendTransaction, which hands the bytes to `window.testWalletSignAndSend` (the test signs
 * with the player's key and sends to the chain) and returns the signature's bytes.
 */
function injectTestWallet(init: { address: string; publicKey: number[] }): void {
  const account = {
    address: init.address,
    publicKey: new Uint8Array(init.publicKey),
    chains: ['solana:localnet'],
    features: ['solana:signAndSendTransaction'],
  };
  // runs in the page: its window, as far as this script uses it (the project's types have no DOM)
  const page = globalThis as unknown as {
    testWalletSignAndSend: (b64: string) => Promise<number[]>;
    addEventListener(type: string, listener: (e: { detail: unknown }) => void): void;
    dispatchEvent(event: unknown): boolean;
    CustomEvent: new (type: string, init: { detail: unknown }) => unknown;
    btoa(text: string): string;
  };
  const send = page.testWalletSignAndSend;
  const wallet = {
    version: '1.0.0',
    name: 'Test Wallet',
    icon: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=',
    chains: ['solana:localnet'],
    accounts: [] as unknown[],
    features: {
      'standard:connect': {
        version: '1.0.0',
        connect: async () => {
          wallet.accounts = [account];
          return { accounts: [account] };
        },
      },
      'standard:events': { version: '1.0.0', on: () => () => undefined },
      'solana:signAndSendTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy'],
        signAndSendTransaction: async (...inputs: Array<{ transaction: Uint8Array }>) =>
          Promise.all(inputs.map(async (input) => ({ signature: new Uint8Array(await send(page.btoa(String.fromCharCode(...input.transaction)))) }))),
      },
    },
  };
  const callback = ({ register }: { register: (w: unknown) => void }) => register(wallet);
  page.addEventListener('wallet-standard:app-ready', (e) => callback(e.detail as { register: (w: unknown) => void }));
  page.dispatchEvent(new page.CustomEvent('wallet-standard:register-wallet', { detail: callback }));
}

it("the page bets with the player's own browser wallet (wallet standard) through the action, and shows the bet settled and verified", async () => {
  const player = Keypair.generate();
  expect((await call(gw, 'GET', `/api/faucet/${player.publicKey.toBase58()}`)).status).toBe(200);
  const conn = new Connection(chainUrl, 'confirmed');
  const sent: string[] = [];
  browser = await launchBrowser();
  const page = await browser.newPage();
  const errors = pageErrors(page);
  await page.exposeFunction('testWalletSignAndSend', async (b64: string) => {
    const tx = Transaction.from(Buffer.from(b64, 'base64'));
    tx.partialSign(player);
    sent.push(await conn.sendRawTransaction(tx.serialize()));
    return Array.from(tx.signature ?? []);
  });
  await page.addInitScript(injectTestWallet, { address: player.publicKey.toBase58(), publicKey: Array.from(player.publicKey.toBytes()) });
  await page.goto(`${gw}/`);
  const testId = (id: string) => page.locator(`[data-testid="${id}"]`);
  await expect.poll(() => page.locator('body').getAttribute('data-ready'), { timeout: 20_000 }).toBe('true');

  const connect = testId('wallet-connect');
  await expect.poll(() => connect.getAttribute('data-wallet'), { timeout: 5_000 }).toBe('Test Wallet');
  await connect.click();
  await expect.poll(() => testId('wallet').getAttribute('data-address'), { timeout: 5_000 }).toBe(player.publicKey.toBase58());
  await expect.poll(() => testId('balance').getAttribute('data-token-units'), { timeout: 10_000 }).toBe('10000000000');
  await testId('amount').fill('120');
  await testId('bet-up').click();
  await expect.poll(() => testId('bet-status').textContent(), { timeout: 10_000 }).toMatch(/^sent by Test Wallet: UP on SOL at .* with 120\.000000 tokens/);
  expect(sent).toHaveLength(1);
  expect(await testId('bet-status').getAttribute('data-tx')).toBe(sent[0]);

  // the bet shows as the stream announces it, and settles on screen, its signed ticks checked in the browser
  const row = testId('history').locator('[data-testid="history-row"]').first();
  await expect.poll(() => row.getAttribute('data-bet-id'), { timeout: 10_000 }).toMatch(/^\d+$/);
  await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toMatch(/^(payout_done|house_won|refunded)$/);
  const verdict = row.locator('[data-testid="verified"]');
  await expect.poll(() => verdict.getAttribute('data-verified'), { timeout: 10_000 }).toBe('true');
  const id = (await row.getAttribute('data-bet-id')) as string;
  const record = await call(gw, 'GET', `/api/bets/${id}`);
  expect(record.body).toMatchObject({ bettor: player.publicKey.toBase58(), side: 'UP', amountUnits: '120000000' });
  expect(record.body.evidence.placeTx).toBe(sent[0]);
  expect(errors).toEqual([]);
}, 90_000);

/**
 * Bets through the Solana Action (docs/gateway-api.md#bet-with-your-wallet) on a chain that fails
 * like a busy public cluster (docs/operations.md#a-fault-profile: 30 % of transactions dropped, the
 * rest landing late, statuses 1.5 s late, 429 bursts, PubSub cut every 20 s), on `npm start` with
 * signed prices. Wallets bet in loops as real wallets do: ask the action, sign, send, and send the
 * same bytes again every second until a status says landed or the blockhash runs out. The gateway
 * never sees these bets being sent; it learns of them from its mirror of the chain, which the cut
 * PubSub sockets make re-sync. Afterwards: every bet of the wallets that is on chain was announced
 * once and settled once, none was announced that is not on chain, every one verifies with `npm run
 * ops -- verify`, and the wallets' tokens plus the vault's are what they were.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { getBase58Decoder } from '@solana/kit';
import { Keypair, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventClient, fetchJson } from '../support/gateway-stack.ts';
import { startWholeStack, type WholeStack } from '../support/whole-stack.ts';
import { eventually } from '../support/eventually.ts';
import { runOps } from '../ops/support.ts';
import { programAccountsNow } from '../support/chain-bets.ts';

const FAULTS = 'cluster,seed=23';
const WALLETS = 10;
const BETTING_MS = 40_000;
const STAKE = '100';
const base58 = getBase58Decoder();

let stack: WholeStack;
let dataDir: string;
let gw = '';
let chainUrl = '';
const wallets = Array.from({ length: WALLETS }, () => Keypair.generate());

/** One JSON-RPC call to the chain, asked again through 429s and dropped answers (as a wallet's client does). */
async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const r = await fetchJson(chainUrl, 'POST', '/', { jsonrpc: '2.0', id: 1, method, params }).catch(() => null);
    const body = r?.body as { result?: T; error?: { message: string } } | undefined;
    if (r?.status === 200 && body && 'result' in body) return body.result as T;
    if (r?.status === 200 && body?.error) throw new Error(`${method}: ${body.error.message}`);
    if (attempt > 60) throw new Error(`${method}: no answer (${r?.status})`);
    await sleep(250);
  }
}

/** A gateway request asked again through its outage answers (503 with Retry-After, the client's part). */
async function gateway(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  for (let attempt = 0; ; attempt++) {
    const r = await fetchJson(gw, method, path, body).catch(() => ({ status: 0, body: undefined }));
    if ((r.status !== 503 && r.status !== 0) || attempt > 60) return r;
    await sleep(500);
  }
}

type Statuses = { value: Array<{ err: unknown; confirmationStatus?: string | null } | null> };

/** Sends the signed transaction again every second until its status says landed (true), failed, or the blockhash expired (false). */
async function sendLikeAWallet(tx: Transaction, lastValidBlockHeight: number): Promise<boolean> {
  const wire = tx.serialize().toString('base64');
  const signature = tx.signatures[0]?.signature;
  if (!signature) throw new Error('unsigned');
  const id = base58.decode(signature);
  for (;;) {
    await rpc('sendTransaction', [wire, { encoding: 'base64', skipPreflight: true, maxRetries: 0 }]).catch(() => undefined);
    await sleep(1_000);
    const status = (await rpc<Statuses>('getSignatureStatuses', [[id]]).catch(() => null))?.value[0];
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return status.err === null;
    if (status?.err) return false;
    const height = await rpc<number>('getBlockHeight', [{ commitment: 'confirmed' }]).catch(() => 0);
    if (height > lastValidBlockHeight) return false;
  }
}

beforeAll(async () => {
  stack = await startWholeStack({ CHAIN_FAULTS: FAULTS, GW_EXPIRY_SECONDS: '3', GW_RECLAIM_BETS: 'off', SIGNED_PRICES: 'on', LOG_LEVEL: 'warn' });
  dataDir = stack.dataDir;
  gw = stack.gateway;
  chainUrl = stack.chainUrl;
  await eventually('a price at the gateway', async () => ((await gateway('GET', '/api/price')).status === 200 ? true : null), 30_000, 200);
  for (const w of wallets) expect((await gateway('GET', `/api/faucet/${w.publicKey.toBase58()}`)).status).toBe(200);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

it('every wallet bet that lands is announced once, settled once and verified; none announced that is not on chain; tokens conserved', async () => {
  const ws = new EventClient(gw.replace('http', 'ws') + '/api/ws');
  await ws.opened;
  const mine = new Set(wallets.map((w) => w.publicKey.toBase58()));
  const tokens = async () => {
    let sum = 0n;
    for (const w of wallets) sum += BigInt((await gateway('GET', `/api/balance/${w.publicKey.toBase58()}`)).body.tokenUnits);
    return sum + BigInt((await gateway('GET', '/api/state')).body.vaultBalance);
  };
  const before = await tokens();

  const outcomes = { landed: 0, notLanded: 0, refused: new Map<number, number>() };
  const stopAt = Date.now() + BETTING_MS;
  await Promise.all(
    wallets.map(async (wallet, i) => {
      while (Date.now() < stopAt) {
        const side = i % 2 === 0 ? 'UP' : 'DOWN';
        const r = await gateway('POST', `/api/actions/bet?side=${side}&amount=${STAKE}`, { account: wallet.publicKey.toBase58() });
        if (r.status !== 200) {
          outcomes.refused.set(r.status, (outcomes.refused.get(r.status) ?? 0) + 1);
          await sleep(500); // an open bet (409) closes at its expiry
          continue;
        }
        const tx = Transaction.from(Buffer.from(r.body.transaction as string, 'base64'));
        tx.partialSign(wallet);
        const height = await rpc<number>('getBlockHeight', [{ commitment: 'confirmed' }]);
        // a blockhash lives 150 blocks past the block height it was fetched at
        if (await sendLikeAWallet(tx, height + 150)) outcomes.landed++;
        else outcomes.notLanded++;
      }
    }),
  );
  const summary = `landed ${outcomes.landed}, not landed ${outcomes.notLanded}, refused ${JSON.stringify([...outcomes.refused])}`;
  expect(outcomes.landed, summary).toBeGreaterThan(WALLETS);
  expect(
    [...outcomes.refused.keys()].filter((s) => s !== 409),
    summary,
  ).toEqual([]);

  // every bet of the wallets on chain: settled, announced once, closed once
  const onChain = await eventually(
    'every bet of the wallets settled on chain',
    async () => {
      const bets = (await programAccountsNow(chainUrl)).bets.filter((b) => mine.has(b.bettor));
      return bets.length > 0 && bets.every((b) => b.status !== 0) ? bets : null;
    },
    90_000,
    500,
  );
  expect(onChain.length, summary).toBeGreaterThanOrEqual(outcomes.landed);
  const ids = onChain.map((b) => b.id.toString()).sort();
  await eventually(
    'every bet closed on the stream',
    async () => (ids.every((id) => ws.events.some((e) => e.type === 'bet_closed' && String(e.id) === id)) ? true : null),
    30_000,
    200,
  );
  await sleep(1_000);
  const opened = ws.events.filter((e) => e.type === 'bet_open' && mine.has(e.bettor)).map((e) => String(e.id));
  const closed = ws.events.filter((e) => e.type === 'bet_closed' && mine.has(e.bettor)).map((e) => String(e.id));
  expect(opened.sort(), summary).toEqual(ids);
  expect(closed.sort(), summary).toEqual(ids);
  ws.close();

  expect(await tokens()).toBe(before);
  // the ops tool reads the chain too, through its 429 bursts: exit code 3 (the chain did not answer) is asked again
  let verified = await runOps(['verify', '--all', '--json'], { DATA_DIR: dataDir, SOLANA_RPC_URL: chainUrl });
  for (let i = 0; i < 5 && verified.code === 3; i++) {
    await sleep(2_000);
    verified = await runOps(['verify', '--all', '--json'], { DATA_DIR: dataDir, SOLANA_RPC_URL: chainUrl });
  }
  const report = verified.json() as { bets: Array<{ id: string; verdict: string; problems: string[] }> };
  expect(report.bets.filter((b) => ids.includes(b.id) && b.verdict !== 'verified')).toEqual([]);
  expect(report.bets.filter((b) => ids.includes(b.id))).toHaveLength(ids.length);
  console.log(`cluster action: ${summary}; ${ids.length} bets on chain, each announced, settled and verified`);
}, 300_000);

/**
 * Bets only with the player's consent, black box (docs/gateway-api.md#bet-intents): a player whose
 * key the gateway does not hold approves the relayer as SPL Token delegate with its own wallet and
 * bets through a gateway in SMART_MODE=prod by signing the text `GET /api/bet-intent` gives. An
 * outsider who reads the player's address off the event stream then tries to bet with it: with no
 * intent, with an intent signed by another key, with the player's earlier intent replayed, with an
 * expired one, and with the player's intent for another side or amount. Each is a 400 that says
 * why, and the player's tokens do not move; the player's own next intent places exactly one bet.
 */
import { createApproveInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readChainInfo, loadRoleKey } from '../../adapters/chain/local/data-dir.ts';
import { signBytes } from '../../adapters/chain/signing.ts';
import { call, EventClient, startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';
import { eventually } from '../support/eventually.ts';
import { startRedisServer, type RunningServer } from '../support/servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const STAKE = 100_000_000n;
const base58 = getBase58Decoder();

let stack: GatewayStack;
let prod: { base: string };
let ticker: NodeJS.Timeout | undefined;
let prodRedis: RunningServer | undefined;
const player = Keypair.generate();
const outsider = Keypair.generate();

/** base58 of `key`'s Ed25519 signature of `message` (what a wallet's signMessage gives). */
const signed = (key: Keypair, message: string): string => base58.decode(signBytes(key, Buffer.from(message, 'utf8')));

async function tokens(address: PublicKey): Promise<string> {
  const r = await call(prod.base, 'GET', `/api/balance/${address.toBase58()}`);
  expect(r.status).toBe(200);
  return String(r.body.tokenUnits);
}

async function intentFor(side: string, amount: bigint, validSeconds?: number): Promise<{ message: string; validUntil: number; betNumber: string }> {
  const q = `side=${side}&amountUnits=${amount}${validSeconds === undefined ? '' : `&validSeconds=${validSeconds}`}`;
  const r = await call(prod.base, 'GET', `/api/bet-intent/${player.publicKey.toBase58()}?${q}`);
  expect(r.status).toBe(200);
  return r.body;
}

const bet = (body: Record<string, unknown>) => call(prod.base, 'POST', '/api/bet', { address: player.publicKey.toBase58(), ...body });

beforeAll(async () => {
  stack = await startGatewayStack();
  // the player is funded on the test-mode gateway, then approves the relayer with its own wallet
  expect((await call(stack.base, 'GET', `/api/faucet/${player.publicKey.toBase58()}`)).status).toBe(200);
  const mint = new PublicKey(readChainInfo(stack.dataDir)?.mint ?? '');
  const relayer = loadRoleKey(stack.dataDir, 'relayer')!.publicKey;
  const conn = new Connection(stack.chainUrl, 'confirmed');
  const { blockhash } = await conn.getLatestBlockhash();
  const approve = new Transaction({ feePayer: player.publicKey, recentBlockhash: blockhash }).add(
    createApproveInstruction(getAssociatedTokenAddressSync(mint, player.publicKey), relayer, player.publicKey, 10n * STAKE),
  );
  approve.sign(player);
  const sig = await conn.sendRawTransaction(approve.serialize());
  await eventually('the approval confirmed', async () => ((await conn.getSignatureStatus(sig)).value?.confirmationStatus ? true : null), 10_000, 100);
  // the prod gateway's key store is sealed with its own secret: its own Redis
  prodRedis = await startRedisServer();
  prod = await stack.extraGateway({
    SMART_MODE: 'prod',
    GW_KEYSTORE_SECRET: 'a-production-secret-of-some-length',
    REDIS_URL: prodRedis.url,
    REDIS_CLUSTER_NODES: '',
    GW_INIT: 'off',
    GW_NODE_ID: 'gw-prod',
  });
  // prices keep coming, so bets open and settle
  // (a tick lost while NATS is busy is no matter: the next comes 200 ms later)
  ticker = setInterval(() => {
    stack.tick((150 + Math.random() / 10).toFixed(8)).catch(() => undefined);
  }, 200);
  await eventually('a price at the prod gateway', async () => ((await call(prod.base, 'GET', '/api/price')).status === 200 ? true : null), 10_000, 100);
}, 180_000);

afterAll(async () => {
  if (ticker) clearInterval(ticker);
  await stack?.stop();
  await prodRedis?.stop();
});

it('places a delegated bet with the bettor signed intent; an outsider with the address off the stream moves no token', async () => {
  const events = new EventClient(prod.base.replace('http', 'ws') + '/api/ws');
  await events.opened;

  // the player's first bet, with its own signature of the text the gateway gives
  const first = await intentFor('UP', STAKE);
  expect(first.message.split('\n')).toEqual([
    'updown bet intent v1',
    expect.stringMatching(/^program: \w{32,44}$/),
    expect.stringMatching(/^config: \w{32,44}$/),
    `bettor: ${player.publicKey.toBase58()}`,
    'side: UP',
    `amount: ${STAKE} units`,
    'bet number: 0',
    `valid until: ${first.validUntil}`,
  ]);
  const before = await tokens(player.publicKey);
  const placed = await bet({ side: 'UP', amountUnits: String(STAKE), intent: { signature: signed(player, first.message), validUntil: first.validUntil } });
  expect(placed.status, JSON.stringify(placed.body)).toBe(200);
  expect(placed.body.bettor).toBe(player.publicKey.toBase58());
  expect(BigInt(await tokens(player.publicKey))).toBe(BigInt(before) - STAKE);

  // an outsider reads the address off the stream
  await eventually('bet_open on the stream', async () => events.events.find((e) => e.type === 'bet_open') ?? null, 10_000, 50);
  const seen = events.events.find((e) => e.type === 'bet_open');
  expect(seen.bettor).toBe(player.publicKey.toBase58());
  await eventually('the bet settled', async () => (events.events.some((e) => e.type === 'bet_closed' && e.id === placed.body.id) ? true : null), 30_000, 100);
  const afterFirst = await tokens(player.publicKey);

  // every try of the outsider: a 400 saying why, nothing sent, the player's tokens where they were
  const next = await intentFor('DOWN', STAKE);
  const tries: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no intent', { side: 'DOWN', amountUnits: String(STAKE) }, /intent/],
    [
      'signed by another key',
      { side: 'DOWN', amountUnits: String(STAKE), intent: { signature: signed(outsider, next.message), validUntil: next.validUntil } },
      /not the bettor's signature/,
    ],
    [
      'the first intent replayed',
      { side: 'UP', amountUnits: String(STAKE), intent: { signature: signed(player, first.message), validUntil: first.validUntil } },
      /bet number 1/,
    ],
    [
      'for another side',
      { side: 'UP', amountUnits: String(STAKE), intent: { signature: signed(player, next.message), validUntil: next.validUntil } },
      /not the bettor's signature/,
    ],
    [
      'for another amount',
      { side: 'DOWN', amountUnits: String(5n * STAKE), intent: { signature: signed(player, next.message), validUntil: next.validUntil } },
      /not the bettor's signature/,
    ],
    [
      'a later validUntil than signed',
      { side: 'DOWN', amountUnits: String(STAKE), intent: { signature: signed(player, next.message), validUntil: next.validUntil + 600 } },
      /not the bettor's signature/,
    ],
    ['malformed', { side: 'DOWN', amountUnits: String(STAKE), intent: { signature: 'xyz', validUntil: next.validUntil } }, /intent must be/],
  ];
  for (const [what, body, why] of tries) {
    const r = await bet(body);
    expect([what, r.status], JSON.stringify(r.body)).toEqual([what, 400]);
    expect(r.body.error).toMatch(why);
  }
  // an expired intent, signed by the player itself
  const short = await intentFor('DOWN', STAKE, 1);
  await sleep(2_100);
  const expired = await bet({ side: 'DOWN', amountUnits: String(STAKE), intent: { signature: signed(player, short.message), validUntil: short.validUntil } });
  expect([expired.status, expired.body.error]).toEqual([400, expect.stringMatching(/validUntil has passed/)]);
  expect(await tokens(player.publicKey)).toBe(afterFirst);
  expect(events.events.filter((e) => e.type === 'bet_open').length).toBe(1);

  // the player's own next intent places exactly one bet
  const ok = await bet({ side: 'DOWN', amountUnits: String(STAKE), intent: { signature: signed(player, next.message), validUntil: next.validUntil } });
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  expect(BigInt(await tokens(player.publicKey))).toBe(BigInt(afterFirst) - STAKE);
  await eventually('its bet_open', async () => (events.events.filter((e) => e.type === 'bet_open').length === 2 ? true : null), 10_000, 50);
  events.close();
}, 120_000);

it('GET /api/bet-intent refuses a bad address, side, amount or validSeconds (400)', async () => {
  const a = player.publicKey.toBase58();
  for (const path of [
    `/api/bet-intent/not-an-address?side=UP&amountUnits=1`,
    `/api/bet-intent/${a}?side=SIDEWAYS&amountUnits=1`,
    `/api/bet-intent/${a}?side=UP&amountUnits=0`,
    `/api/bet-intent/${a}?side=UP&amountUnits=1&validSeconds=0`,
    `/api/bet-intent/${a}?side=UP&amountUnits=1&validSeconds=86400`,
  ]) {
    const r = await call(prod.base, 'GET', path);
    expect([path, r.status]).toEqual([path, 400]);
    expect(typeof r.body.error).toBe('string');
  }
});

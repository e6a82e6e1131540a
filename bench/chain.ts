/**
 * Local chain throughput (loopback, bounded): how long a fresh data dir takes from process
 * start to ready, then place_bet and close_bet transactions per second
 *  - through the chain adapter (what the gateway gets: send with preflight, confirmation by
 *    status polling, account reads), 500 of each, 16 in flight;
 *  - raw: 500 pre-signed transactions of each kind sent in JSON-RPC batches of 50 (the
 *    chain's own capacity: decode, execute, journal, one fsync per batch).
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createMintToInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { closeBetIx, placeBetIx } from '../adapters/chain/codec.ts';
import { loadLocalChainInfo, loadOrCreateRoleKeys } from '../adapters/chain/local/data-dir.ts';
import type { BetAccount } from '../adapters/chain/port.ts';
import { RpcChain } from '../adapters/chain/rpc-chain/index.ts';
import { until } from './support/measure.ts';
import { freePort, stopChild, waitForPort } from '../test/support/servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../test/support/temp-dir.ts';

const COUNT = Number(process.env.BENCH_CHAIN_COUNT ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CHAIN_CONCURRENCY ?? 16);
const STAKE = 100_000_000n;
const PRICE = 150_00000000n;

async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
  return (performance.now() - started) / 1000;
}

const dataDir = tempDir('bench-chain-');
const port = await freePort();
const spawned = performance.now();
const child = spawn(process.execPath, ['--import', 'tsx', 'bin/chain.ts'], {
  env: { ...process.env, DATA_DIR: dataDir, CHAIN_PORT: String(port), GW_EXPIRY_SECONDS: '1', LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let chainLog = '';
child.stdout?.on('data', (d: Buffer) => (chainLog += d.toString()));
try {
  await waitForPort(port, 60_000, 'local chain');
  const readySeconds = (performance.now() - spawned) / 1000;
  const info = loadLocalChainInfo(dataDir);
  if (!info?.mint) throw new Error('chain wrote no info');
  const roles = loadOrCreateRoleKeys(dataDir);
  const operator = roles.relayer;
  const minter = roles['mint-authority'];
  const url = `http://127.0.0.1:${port}`;
  const chain = new RpcChain({ url, keys: { relayer: operator, mintAuthority: minter }, knownLocalGenesis: [info.genesisHash], pollMs: 20 });
  const mint = new PublicKey(info.mint);

  // fund the bettors with tokens, several per transaction (setup, not measured)
  const conn = new Connection(url, 'confirmed');
  const bettors = Array.from({ length: 2 * COUNT }, () => Keypair.generate());
  for (let i = 0; i < bettors.length; i += 5) {
    const ixs: TransactionInstruction[] = bettors.slice(i, i + 5).flatMap((b) => {
      const ata = getAssociatedTokenAddressSync(mint, b.publicKey);
      return [
        createAssociatedTokenAccountIdempotentInstruction(minter.publicKey, ata, b.publicKey, mint),
        createMintToInstruction(mint, ata, minter.publicKey, STAKE),
      ];
    });
    const tx = new Transaction({ feePayer: minter.publicKey, recentBlockhash: (await conn.getLatestBlockhash()).blockhash }).add(...ixs);
    tx.sign(minter);
    await conn.sendRawTransaction(tx.serialize());
  }

  const placed: BetAccount[] = [];
  const placeSeconds = await pool(bettors.slice(0, COUNT), CONCURRENCY, async (bettor) => {
    placed.push((await chain.placeBet({ stake: { kind: 'signer', bettor }, side: 'UP', amount: STAKE, entryPrice: PRICE })).bet);
  });
  const lastExpiry = placed.reduce((m, b) => (b.expireTime > m ? b.expireTime : m), 0n);
  while (Date.now() / 1000 < Number(lastExpiry) + 0.1) await sleep(100);
  const closeSeconds = await pool(placed, CONCURRENCY, (bet) => chain.closeBet(bet, PRICE + 1n));

  // raw: pre-signed transactions in ordered JSON-RPC batches
  const { vault } = (await chain.readConfig())!;
  const vaultKey = new PublicKey(vault);
  const rawBettors = bettors.slice(COUNT);
  const sign = async (ixs: TransactionInstruction[], signers: Keypair[]) => {
    const tx = new Transaction({ feePayer: operator.publicKey, recentBlockhash: (await conn.getLatestBlockhash()).blockhash }).add(...ixs);
    tx.sign(operator, ...signers);
    return tx.serialize().toString('base64');
  };
  const raw = async (wires: string[]): Promise<number> => {
    const started = performance.now();
    for (let i = 0; i < wires.length; i += 50) {
      const batch = wires.slice(i, i + 50).map((w, k) => ({ jsonrpc: '2.0', id: i + k, method: 'sendTransaction', params: [w, { encoding: 'base64' }] }));
      const res = (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) })).json()) as {
        error?: unknown;
      }[];
      const failed = res.filter((r) => r.error);
      if (failed.length > 0) throw new Error(`raw batch refused: ${JSON.stringify(failed[0])}`);
    }
    return (performance.now() - started) / 1000;
  };
  const placeWires = await Promise.all(
    rawBettors.map((b) =>
      sign(
        [
          placeBetIx(
            {
              seq: 0n,
              bettor: b.publicKey,
              bettorToken: getAssociatedTokenAddressSync(mint, b.publicKey),
              vault: vaultKey,
              relayer: operator.publicKey,
              delegated: false,
            },
            'DOWN',
            STAKE,
            PRICE,
          ),
        ],
        [b],
      ),
    ),
  );
  const rawPlaceSeconds = await raw(placeWires);
  const closeWires = await Promise.all(
    rawBettors.map((b) =>
      sign(
        [
          closeBetIx(
            {
              ref: { bettor: b.publicKey.toBase58(), seq: 0n },
              bettorToken: getAssociatedTokenAddressSync(mint, b.publicKey),
              vault: vaultKey,
              relayer: operator.publicKey,
            },
            PRICE + 1n,
          ),
        ],
        [],
      ),
    ),
  );
  // the adapter's view may lag the raw sends (its subscriptions can drop and re-sync while the chain is this busy)
  const lastRaw = { bettor: rawBettors.at(-1)!.publicKey.toBase58(), seq: 0n };
  await until(
    'the last raw bet seen expired',
    async () => {
      const bet = await chain.readBet(lastRaw).catch(() => null);
      return bet !== null && Date.now() / 1000 >= Number(bet.expireTime) + 0.1;
    },
    60_000,
    100,
  );
  const rawCloseSeconds = await raw(closeWires);
  // as above: the adapter's view shows the raw closes once its subscriptions have caught up
  // (a bet still open after 60 s fails the bench below, once the rates are printed)
  let open: BetAccount[] = [];
  await until('no bet left open', async () => (open = await chain.scanOpenBets()).length === 0, 60_000, 100).catch(() => undefined);

  const readyMs = /"readyMs":(\d+)/.exec(chainLog)?.[1] ?? '?';
  const rate = (n: number, s: number) => `${n} in ${s.toFixed(2)} s = ${(n / s).toFixed(0)} tx/s`;
  console.log(`fresh data dir: process start to ready ${readySeconds.toFixed(2)} s (of which setup: deploy, mint, initialise = ${readyMs} ms)`);
  console.log(`place_bet via adapter: ${rate(COUNT, placeSeconds)} (${CONCURRENCY} in flight)`);
  console.log(`close_bet via adapter: ${rate(COUNT, closeSeconds)} (${CONCURRENCY} in flight)`);
  console.log(`place_bet raw:         ${rate(COUNT, rawPlaceSeconds)} (pre-signed, batches of 50)`);
  console.log(`close_bet raw:         ${rate(COUNT, rawCloseSeconds)} (pre-signed, batches of 50)`);
  chain.close();
  if (open.length !== 0) throw new Error(`${open.length} bets still open 60 s after closing all`);
} finally {
  await stopChild(child);
  rmSync(dataDir, { recursive: true, force: true });
}

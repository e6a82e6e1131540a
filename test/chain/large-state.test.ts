/**
 * The local chain's state has no size ceiling
 * (docs/decisions.md#the-local-chain-grows-without-a-ceiling): a chain process filled with
 * 100,000 accounts — 25,000 funded wallets, each with a token account, a bettor state and an open
 * bet — compacts, restarts (gracefully, then after SIGKILL in the middle of a stream of
 * transactions) with every account, and still places and settles bets. About 70 s here on 2 cores,
 * most of it the fill.
 */
import { generateKeyPairSync } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { betAddress, tokenAccountOf } from '../../adapters/chain/codec.ts';
import { loadLocalChainInfo, loadOrCreateRoleKeys } from '../../adapters/chain/local/data-dir.ts';
import { RpcChain } from '../../adapters/chain/rpc-chain/index.ts';
import { signTransaction } from '../../adapters/chain/signing.ts';
import { blockhash, firstBetWires, fundBettors, httpRpc, sendBatches, type RpcExchange } from '../../bench/support/raw-chain.ts';
import { managedService } from '../support/managed.ts';
import { freePort } from '../support/servers.ts';
import { untilUnix } from './support.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../support/temp-dir.ts';

const WALLETS = 25_000;
const STAKE = 100_000_000n;
const WALLET_LAMPORTS = 10_000_000n;
const PRICE = 150_00000000n;
const TRANSFERS_PER_TX = 18;
const BETS_PER_BLOCKHASH = 2_500;

/** Keypairs from Node's own Ed25519 (web3.js derives each public key in JavaScript, far slower). */
function keypairs(n: number): Keypair[] {
  return Array.from({ length: n }, () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
    const pub = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    return Keypair.fromSecretKey(Buffer.concat([seed, pub]), { skipValidation: true });
  });
}

/** Gives every wallet lamports from the mint authority, many transfers per transaction. */
async function fundWallets(rpc: RpcExchange, dataDir: string, wallets: Keypair[]): Promise<void> {
  const payer = loadOrCreateRoleKeys(dataDir)['mint-authority'];
  const hash = await blockhash(rpc);
  const wires: string[] = [];
  for (let i = 0; i < wallets.length; i += TRANSFERS_PER_TX) {
    const ixs = wallets
      .slice(i, i + TRANSFERS_PER_TX)
      .map((w) => SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: w.publicKey, lamports: WALLET_LAMPORTS }));
    wires.push(signTransaction(ixs, payer, [], hash).wire.toString('base64'));
  }
  await sendBatches(rpc, wires);
}

/** The fields of the chain's log lines with message `msg`, oldest first. */
function logLines<T>(output: string, msg: string): T[] {
  return output
    .split('\n')
    .filter((l) => l.includes(`"msg":"${msg}"`))
    .map((l) => JSON.parse(l) as T);
}
const loadLines = (output: string) => logLines<{ replayed: number; accounts: number; ms: number; from: string }>(output, 'local chain state loaded');

const Multiple = v.object({ result: v.object({ value: v.array(v.nullable(v.object({ lamports: v.number(), data: v.tuple([v.string(), v.string()]) }))) }) });
const Signatures = v.object({ result: v.array(v.object({ signature: v.string(), err: v.unknown() })) });

describe('a local chain holding 100,000 accounts', () => {
  const dataDir = tempDir('chain-large-');
  let chain: ReturnType<typeof managedService> | null = null;
  afterAll(async () => {
    await chain?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('restarts with every account, also after SIGKILL, and still places and settles bets', { timeout: 240_000 }, async () => {
    const port = await freePort();
    chain = managedService('chain', { DATA_DIR: dataDir, CHAIN_PORT: String(port), GW_EXPIRY_SECONDS: '2' }, port);
    await chain.start();
    const url = `http://127.0.0.1:${port}`;
    const rpc = httpRpc(url);

    const bettors = keypairs(WALLETS);
    await fundWallets(rpc, dataDir, bettors);
    await fundBettors(rpc, dataDir, bettors, STAKE * 2n);
    // signed in chunks, each with a fresh blockhash: one blockhash lasts 150 slots (60 s), less than 25,000 bets take on a slow machine
    for (let i = 0; i < bettors.length; i += BETS_PER_BLOCKHASH)
      await sendBatches(rpc, firstBetWires(dataDir, bettors.slice(i, i + BETS_PER_BLOCKHASH), STAKE, await blockhash(rpc)));
    // the fill went through compactions of tens of thousands of accounts, transactions landing meanwhile
    expect(Math.max(...logLines<{ accounts: number }>(chain.output(), 'journal compacted').map((c) => c.accounts))).toBeGreaterThan(50_000);
    expect(chain.output()).not.toMatch(/compaction failed|Internal error/);

    /** A sample of bettors: wallet, token account and bet all there, the stake gone to the vault. */
    const mint = new PublicKey(loadLocalChainInfo(dataDir)?.mint ?? '');
    const sample = [0, 1, 4_999, 12_345, WALLETS - 1].map((i) => bettors[i] as Keypair);
    const checkSample = async () => {
      const keys = sample.flatMap((b) => [b.publicKey, tokenAccountOf(mint, b.publicKey), betAddress({ bettor: b.publicKey.toBase58(), seq: 0n })]);
      const res = v.parse(
        Multiple,
        await rpc({ jsonrpc: '2.0', id: 1, method: 'getMultipleAccounts', params: [keys.map((k) => k.toBase58()), { encoding: 'base64' }] }),
      );
      res.result.value.forEach((acc, i) => {
        expect(acc, `account ${keys[i]?.toBase58()}`).not.toBeNull();
        if (i % 3 === 0) expect(acc?.lamports).toBe(Number(WALLET_LAMPORTS));
        if (i % 3 === 1) expect(Buffer.from(acc?.data[0] ?? '', 'base64').readBigUInt64LE(64)).toBe(STAKE);
      });
    };
    await checkSample();

    // graceful restart: the state loads from the snapshot plus what the journal holds since
    await chain.terminate();
    await chain.start();
    const graceful = loadLines(chain.output()).at(-1);
    expect(graceful?.accounts).toBeGreaterThanOrEqual(4 * WALLETS);
    expect(graceful?.from).toBe('snapshot');
    await checkSample();

    // SIGKILL in the middle of a stream of faucet-like transfers: every acknowledged one survives
    const late = keypairs(3_000);
    const acknowledged: Keypair[] = [];
    const stream = (async () => {
      for (let i = 0; i < late.length; i += TRANSFERS_PER_TX) {
        const batch = late.slice(i, i + TRANSFERS_PER_TX);
        await fundWallets(rpc, dataDir, batch);
        acknowledged.push(...batch);
      }
    })().catch(() => undefined);
    while (acknowledged.length < 100) await sleep(5);
    await chain.kill();
    await stream;
    expect(acknowledged.length).toBeLessThan(late.length); // the kill really interrupted the stream
    await chain.start();
    const killed = loadLines(chain.output()).at(-1);
    expect(killed?.accounts).toBeGreaterThanOrEqual(4 * WALLETS + acknowledged.length);
    await checkSample();
    for (let i = 0; i < acknowledged.length; i += 100) {
      const keys = acknowledged.slice(i, i + 100).map((k) => k.publicKey.toBase58());
      const found = v.parse(Multiple, await rpc({ jsonrpc: '2.0', id: 1, method: 'getMultipleAccounts', params: [keys, { encoding: 'base64' }] }));
      expect(found.result.value.map((a) => a?.lamports)).toEqual(keys.map(() => Number(WALLET_LAMPORTS)));
    }

    // the program still runs: settle one of the 25,000 bets (long expired), and place and settle a new one
    const roles = loadOrCreateRoleKeys(dataDir);
    const info = loadLocalChainInfo(dataDir);
    const adapter = new RpcChain({
      url,
      keys: { relayer: roles.relayer, mintAuthority: roles['mint-authority'] },
      knownLocalGenesis: [info?.genesisHash ?? ''],
      pollMs: 20,
    });
    try {
      const oldRef = { bettor: (bettors[7] as Keypair).publicKey.toBase58(), seq: 0n };
      const closedOld = await adapter.closeBet(oldRef, PRICE - 1n); // placed DOWN at PRICE: a win
      expect(closedOld.status).toBe(1);
      const history = v.parse(
        Signatures,
        await rpc({ jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [betAddress(oldRef).toBase58(), { limit: 5 }] }),
      );
      expect(history.result.map((s) => s.signature)).toEqual([closedOld.signature, expect.any(String)]); // the close, then the placement

      const fresh = keypairs(1)[0] as Keypair;
      await adapter.faucet(fresh.publicKey);
      const placed = await adapter.placeBet({ stake: { kind: 'signer', bettor: fresh }, side: 'UP', amount: STAKE, entryPrice: PRICE });
      expect(placed.bet.id).toBeGreaterThanOrEqual(BigInt(WALLETS));
      await untilUnix(placed.bet.expireTime);
      expect((await adapter.closeBet({ bettor: fresh.publicKey.toBase58(), seq: placed.bet.seq }, PRICE + 1n)).status).toBe(1);
    } finally {
      adapter.close();
    }
    expect(chain.output()).not.toMatch(/compaction failed|Internal error/);
  });
});

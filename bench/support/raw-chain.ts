/**
 * The chain's own capacity, the baseline of the bet benchmarks: pre-signed place_bet
 * transactions of fresh bettors sent straight to the chain in ordered JSON-RPC batches of 50
 * (decode, execute, journal; no gateway, no confirmation polling). Also funds bettors with the
 * test mint (setup, not measured).
 */
import { Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createMintToInstruction } from '@solana/spl-token';
import * as v from 'valibot';
import { configAddress, placeBetIx, tokenAccountOf } from '../../adapters/chain/codec.ts';
import { loadLocalChainInfo, loadOrCreateRoleKeys } from '../../adapters/chain/local/data-dir.ts';
import { signTransaction } from '../../adapters/chain/signing.ts';
import { signedPricesOnIxs } from '../../adapters/chain/local/setup.ts';

const Blockhash = v.object({ result: v.object({ value: v.object({ blockhash: v.string() }) }) });

/** Where JSON-RPC bodies go: over HTTP (`httpRpc(url)`) or a local chain's in-process transport. */
export type RpcExchange = (body: unknown) => Promise<unknown>;

/** JSON-RPC over HTTP to `url`. */
export const httpRpc =
  (url: string): RpcExchange =>
  async (body) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.json();
  };

/** A recent blockhash of the chain. */
export async function blockhash(rpc: RpcExchange): Promise<string> {
  return v.parse(Blockhash, await rpc({ jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash', params: [{ commitment: 'confirmed' }] })).result.value.blockhash;
}

/** Whether a request failed because its connection was closed under it (its answer is lost, not refused). */
const connectionLost = (err: unknown): boolean => err instanceof TypeError && (err.cause as { code?: string } | undefined)?.code === 'UND_ERR_SOCKET';
const alreadyProcessed = (error: unknown): boolean => (error as { data?: { err?: unknown } } | undefined)?.data?.err === 'AlreadyProcessed';

/**
 * Sends base64 transactions in ordered batches (of 50); throws on the first refusal. Resolves with
 * the seconds taken. A batch whose connection was closed under it is sent again (twice at most),
 * as any client that lost an answer would: what landed the first time answers AlreadyProcessed.
 */
export async function sendBatches(rpc: RpcExchange, wires: string[], size = 50): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < wires.length; i += size) {
    const batch = wires.slice(i, i + size).map((w, k) => ({ jsonrpc: '2.0', id: i + k, method: 'sendTransaction', params: [w, { encoding: 'base64' }] }));
    let resent = false;
    let res: Array<{ error?: unknown }> | null = null;
    for (let attempt = 1; res === null; attempt++) {
      try {
        res = (await rpc(batch)) as Array<{ error?: unknown }>;
      } catch (err) {
        if (attempt >= 3 || !connectionLost(err)) throw err;
        resent = true;
      }
    }
    const failed = res.filter((r) => r.error && !(resent && alreadyProcessed(r.error)));
    if (failed.length > 0) throw new Error(`raw batch refused: ${JSON.stringify(failed[0])}`);
  }
  return (performance.now() - started) / 1000;
}

/** The test mint and the keys of a local chain data dir. */
function chainOf(dataDir: string) {
  const info = loadLocalChainInfo(dataDir);
  if (!info?.mint) throw new Error(`no local chain in ${dataDir}`);
  const roles = loadOrCreateRoleKeys(dataDir);
  return { mint: new PublicKey(info.mint), relayer: roles.relayer, minter: roles['mint-authority'] };
}

/** Gives each bettor a token account holding `units` of the test mint, five per transaction. */
export async function fundBettors(rpc: RpcExchange, dataDir: string, bettors: Keypair[], units: bigint, batchSize = 50): Promise<void> {
  const { mint, minter } = chainOf(dataDir);
  const hash = await blockhash(rpc);
  const wires: string[] = [];
  for (let i = 0; i < bettors.length; i += 5) {
    const ixs: TransactionInstruction[] = bettors.slice(i, i + 5).flatMap((b) => {
      const ata = tokenAccountOf(mint, b.publicKey);
      return [
        createAssociatedTokenAccountIdempotentInstruction(minter.publicKey, ata, b.publicKey, mint),
        createMintToInstruction(mint, ata, minter.publicKey, units),
      ];
    });
    wires.push(signTransaction(ixs, minter, [], hash).wire.toString('base64'));
  }
  await sendBatches(rpc, wires, batchSize);
}

/** The admin's transaction turning signed prices on, trusting `signer`, as a base64 wire. */
export function signedPricesOnWire(dataDir: string, signer: PublicKey, hash: string): string {
  const { admin } = loadOrCreateRoleKeys(dataDir);
  return signTransaction(signedPricesOnIxs(admin.publicKey, signer), admin, [], hash).wire.toString('base64');
}

/** Each bettor's first bet (seq 0) of `stake` at entry price 150, signed by the relayer and the bettor, as base64 wires. */
export function firstBetWires(dataDir: string, bettors: Keypair[], stake: bigint, hash: string, side: (i: number) => 'UP' | 'DOWN' = () => 'DOWN'): string[] {
  const { mint, relayer } = chainOf(dataDir);
  const vault = tokenAccountOf(mint, configAddress());
  return bettors.map((b, i) =>
    signTransaction(
      [
        placeBetIx(
          { seq: 0n, bettor: b.publicKey, bettorToken: tokenAccountOf(mint, b.publicKey), vault, relayer: relayer.publicKey, delegated: false },
          side(i),
          stake,
          150_00000000n,
        ),
      ],
      relayer,
      [b],
      hash,
    ).wire.toString('base64'),
  );
}

/** Pre-signed place_bet capacity of the chain at `url`: `count` fresh bettors, each one bet. Resolves with tx/s. */
export async function rawPlaceCapacity(url: string, dataDir: string, count: number): Promise<number> {
  const stake = 100_000_000n;
  const rpc = httpRpc(url);
  const bettors = Array.from({ length: count }, () => Keypair.generate());
  await fundBettors(rpc, dataDir, bettors, stake);
  const wires = firstBetWires(dataDir, bettors, stake, await blockhash(rpc));
  return count / (await sendBatches(rpc, wires));
}

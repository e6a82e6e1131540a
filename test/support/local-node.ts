/**
 * Local nodes on temporary data dirs for the local chain's unit tests, and the system transfers
 * they send (signed web3.js transactions, as a client would).
 */
import { rmSync } from 'node:fs';
import { type Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { quietLog } from './quiet-log.ts';
import { JsonRpcDispatcher } from '../../adapters/chain/local/json-rpc.ts';
import { LocalNode, type LocalNodeOptions } from '../../adapters/chain/local/node.ts';
import { rpcMethods } from '../../adapters/chain/local/rpc-methods.ts';
import { tempDir } from './temp-dir.ts';

export const TEST_GENESIS = 'G3nesis1111111111111111111111111111111111111';

/** Temporary data dirs, removed by `removeAll()` (call it in afterEach). */
export class TempDirs {
  private readonly made: string[] = [];

  make(prefix = 'node-'): string {
    const dir = tempDir(prefix);
    this.made.push(dir);
    return dir;
  }

  removeAll(): void {
    for (const d of this.made.splice(0)) rmSync(d, { recursive: true, force: true });
  }
}

/** Opens a node on `dir` with a silent log (`extra` overrides the defaults). */
export function openNode(dir: string, extra: Partial<LocalNodeOptions> = {}): LocalNode {
  return LocalNode.open({ dir, genesisHash: TEST_GENESIS, log: quietLog, ...extra });
}

/** A signed transfer of `lamports` from `from` to `to`; the fee is paid by `payer` (default `from`). */
export function transfer(node: LocalNode, from: Keypair, to: Keypair, lamports: number | bigint, payer: Keypair = from): Uint8Array {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: node.latestBlockhash().blockhash }).add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports }),
  );
  tx.sign(...(payer === from ? [from] : [payer, from]));
  return tx.serialize();
}

/** Sends a transfer and resolves with its signature once it is durable. */
export function send(node: LocalNode, wire: Uint8Array): Promise<string> {
  return node.submit(wire, { skipPreflight: false });
}

/** Empties `victim` into `to` (the fee paid by `to`), so the account is deleted. */
export async function drain(node: LocalNode, victim: Keypair, to: Keypair): Promise<string> {
  const lamports = node.account(victim.publicKey.toBase58())?.lamports ?? 0n;
  return send(node, transfer(node, victim, to, lamports, to));
}

/** A JSON-RPC answer of the local chain as a test reads it. */
export type RpcAnswer = { result?: any; error?: { code: number; message: string; data?: any } };

/** Calls `method` on `node` through the chain's own JSON-RPC dispatcher (no HTTP). */
export async function rpcCall(node: LocalNode, method: string, params: unknown[] = []): Promise<RpcAnswer> {
  const dispatcher = new JsonRpcDispatcher(rpcMethods(node, 'genesis'), quietLog);
  return JSON.parse(await dispatcher.handleText(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))) as RpcAnswer;
}

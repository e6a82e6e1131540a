/**
 * Local chains with a fault profile for the profile's tests (docs/operations.md#a-fault-profile):
 * one data dir set up once per test file and restarted with each profile (a restart takes
 * milliseconds, a fresh setup seconds), and plain HTTP JSON-RPC calls whose every answer is kept
 * as it came (status, headers, body), since the profile's answers are what is tested.
 *
 * @example
 *   const chains = new FaultChains();
 *   afterAll(() => chains.removeAll());
 *   const chain = await chains.start('drop=0.3,seed=7');
 *   const { signature, wire } = await chains.transfer(chain, payer, to, 1_000);
 */
import { rmSync } from 'node:fs';
import { type Keypair, LAMPORTS_PER_SOL, SystemProgram } from '@solana/web3.js';
import type { FaultSettings } from '../../adapters/chain/local/faults/profile.ts';
import { startLocalChain, type LocalChain } from '../../adapters/chain/local/start.ts';
import { signTransaction, type SignedTransaction } from '../../adapters/chain/signing.ts';
import { quietLog } from './quiet-log.ts';
import { tempDir } from './temp-dir.ts';

/** One HTTP exchange with the chain, as it came. */
export interface Exchange {
  status: number;
  retryAfter: string | null;
  body: any;
}

/** POSTs a JSON-RPC body to `url` and keeps the whole answer. */
export async function post(url: string, body: unknown): Promise<Exchange> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

let nextId = 1;

/** One JSON-RPC call; throws on an HTTP error or a JSON-RPC error, else returns the result. */
export async function rpc(chain: LocalChain, method: string, params: unknown[] = []): Promise<any> {
  const answer = await post(chain.url, { jsonrpc: '2.0', id: nextId++, method, params });
  if (answer.status !== 200 || answer.body.error) throw new Error(`${method}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.result;
}

/** sendTransaction of `wire`, answered as it came (result or error). */
export async function sendWire(chain: LocalChain, wire: Uint8Array, skipPreflight = false): Promise<{ result?: string; error?: any }> {
  const answer = await post(chain.url, {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'sendTransaction',
    params: [Buffer.from(wire).toString('base64'), { encoding: 'base64', skipPreflight }],
  });
  return answer.body;
}

/** The statuses of `signatures` (null where the chain shows none). */
export async function statuses(chain: LocalChain, signatures: string[]): Promise<Array<{ slot: number; err: unknown } | null>> {
  return (await rpc(chain, 'getSignatureStatuses', [signatures])).value;
}

/** A signed transfer over the chain's latest blockhash. */
export async function transfer(chain: LocalChain, from: Keypair, to: Keypair, lamports: number): Promise<SignedTransaction> {
  const { blockhash } = (await rpc(chain, 'getLatestBlockhash')).value;
  return signTransaction([SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports })], from, [], blockhash);
}

/** Credits `sol` to `to` (airdrops are never faulted). */
export async function fund(chain: LocalChain, to: Keypair, sol = 10): Promise<void> {
  await rpc(chain, 'requestAirdrop', [to.publicKey.toBase58(), sol * LAMPORTS_PER_SOL]);
}

/** The balance of `who`, lamports. */
export async function balance(chain: LocalChain, who: Keypair): Promise<number> {
  return (await rpc(chain, 'getBalance', [who.publicKey.toBase58()])).value;
}

/** One data dir for a test file, its chain restarted with each profile. */
export class FaultChains {
  private readonly dataDir = tempDir('chain-faults-');
  private running: LocalChain | null = null;

  get dir(): string {
    return this.dataDir;
  }

  /** Stops the chain running (if any) and starts one with `faults` on a free port. */
  async start(faults: string | FaultSettings | null, slotMs?: number): Promise<LocalChain> {
    await this.stop();
    this.running = await startLocalChain({ dataDir: this.dataDir, port: 0, init: null, log: quietLog, faults, ...(slotMs ? { slotMs } : {}) });
    return this.running;
  }

  async stop(): Promise<void> {
    await this.running?.stop();
    this.running = null;
  }

  async removeAll(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

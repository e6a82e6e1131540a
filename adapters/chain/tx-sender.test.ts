/**
 * The sender's economy of RPC calls, against a scripted JSON-RPC transport: concurrent sends share
 * one blockhash fetch, concurrent confirmations share one status poll, and a signature that stays
 * unknown ends in ChainUnavailable at its deadline.
 */
import { Keypair, SystemProgram } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { ChainUnavailable } from './port.ts';
import { RpcClient, type JsonRpcTransport } from './rpc-client.ts';
import { TxSender } from './tx-sender.ts';

/** Answers like a chain that confirms every transaction it was sent; counts calls per method. */
class ScriptedChain implements JsonRpcTransport {
  readonly description = 'scripted';
  readonly calls: Record<string, number> = {};
  readonly sent = new Set<string>();
  confirmAll = true;

  async exchange(body: object): Promise<unknown> {
    const { id, method, params } = body as { id: number; method: string; params: unknown[] };
    this.calls[method] = (this.calls[method] ?? 0) + 1;
    await new Promise((r) => setTimeout(r, 5));
    const result = (() => {
      switch (method) {
        case 'getLatestBlockhash':
          return { context: { slot: 1 }, value: { blockhash: 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k', lastValidBlockHeight: 100 } };
        case 'sendTransaction': {
          const sig = `sig${this.sent.size}`;
          this.sent.add(sig);
          return sig;
        }
        case 'getSignatureStatuses':
          return {
            context: { slot: 2 },
            value: (params[0] as string[]).map(() => (this.confirmAll ? { slot: 2, err: null, confirmationStatus: 'confirmed' } : null)),
          };
        default:
          throw new Error(`unexpected ${method}`);
      }
    })();
    return { jsonrpc: '2.0', id, result };
  }
}

const payer = Keypair.generate();
const transfer = () => [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 })];

describe('TxSender', () => {
  it('twenty concurrent transactions: one blockhash fetch, twenty sends, a few batched status polls', async () => {
    const chain = new ScriptedChain();
    const sender = new TxSender(new RpcClient(chain), { confirmTimeoutMs: 5_000, pollMs: 10, blockhashTtlMs: 2_000 });
    const sigs = await Promise.all(Array.from({ length: 20 }, () => sender.sendAndConfirm('transfer', transfer(), payer)));
    expect(new Set(sigs).size).toBe(20);
    expect(chain.calls).toMatchObject({ getLatestBlockhash: 1, sendTransaction: 20 });
    // the sends answer over a few turns of the event loop; their confirmations are polled together
    expect(chain.calls.getSignatureStatuses).toBeLessThanOrEqual(3);
  });

  it('a signature the chain never confirms ends in ChainUnavailable at its deadline', async () => {
    const chain = new ScriptedChain();
    chain.confirmAll = false;
    const sender = new TxSender(new RpcClient(chain), { confirmTimeoutMs: 200, pollMs: 20, blockhashTtlMs: 2_000 });
    await expect(sender.sendAndConfirm('transfer', transfer(), payer)).rejects.toBeInstanceOf(ChainUnavailable);
    expect(chain.calls.getSignatureStatuses).toBeGreaterThan(2);
  });
});

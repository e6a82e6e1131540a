/**
 * Sends a transaction and confirms it by polling `getSignatureStatuses` until it is
 * confirmed or a deadline passes. Preflight is on, so most refusals come back at send
 * time with the program's logs; an identical transaction already processed is the same
 * intent already on chain (its signature is returned: a duplicate is never reported as an
 * outage); an expired blockhash is re-signed over a newer one; a send whose answer was lost is
 * looked up by its signature before it is called failed.
 */
import * as v from 'valibot';
import { Transaction, type Keypair, type TransactionInstruction } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { ChainRejected, ChainUnavailable } from './port.ts';
import { RpcClient, RpcError } from './rpc-client.ts';
import { failureOf, preflightOf } from './tx-outcome.ts';

const base58 = getBase58Decoder();
const Context = v.object({ slot: v.number() });
const LatestBlockhash = v.object({ context: Context, value: v.object({ blockhash: v.string(), lastValidBlockHeight: v.number() }) });
const Statuses = v.object({
  context: Context,
  value: v.array(v.nullable(v.object({ slot: v.number(), err: v.unknown(), confirmationStatus: v.optional(v.nullable(v.string())) }))),
});

/** Confirmation deadline, polling pace, blockhash reuse. */
export interface SenderOptions {
  /** how long to wait for a confirmation */
  confirmTimeoutMs: number;
  /** pause between status polls */
  pollMs: number;
  /** a fetched blockhash is reused this long */
  blockhashTtlMs: number;
}

/** Builds, signs, sends and confirms transactions. */
export class TxSender {
  private blockhash: { value: string; at: number } | null = null;

  constructor(
    private readonly rpc: RpcClient,
    private readonly opts: SenderOptions,
  ) {}

  /** Sends `instructions` paid by `payer`, signed by `signers` too; resolves with the confirmed signature. */
  async sendAndConfirm(what: string, instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[] = []): Promise<string> {
    const signature = await this.send(what, instructions, payer, signers);
    await this.confirm(what, signature);
    return signature;
  }

  /**
   * Sends (with preflight) and returns the signature once the chain accepted it. An identical
   * transaction already processed (same instructions, signers and blockhash: the same intent sent
   * twice) answers the signature it already has; callers that mean two intents make their
   * transactions differ (the faucet adds a memo nonce).
   */
  async send(what: string, instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[] = []): Promise<string> {
    let avoid: string | null = null;
    for (let attempt = 0; ; attempt++) {
      const blockhash = await this.recentBlockhash(avoid);
      const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
      tx.sign(payer, ...signers.filter((s) => !s.publicKey.equals(payer.publicKey)));
      try {
        // we just signed it: skip web3.js's signature re-verification (costly ed25519 verifies)
        return await this.rpc.call('sendTransaction', [tx.serialize({ verifySignatures: false }).toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed' }], v.string());
      } catch (e) {
        if (!(e instanceof RpcError)) {
          // the answer was lost (timeout, reset): the transaction may have landed all the same
          const signature = tx.signature ? base58.decode(tx.signature) : null;
          if (e instanceof ChainUnavailable && signature && (await this.landed(signature))) return signature;
          throw e;
        }
        const pre = preflightOf(e);
        const signature = tx.signature ? base58.decode(tx.signature) : null;
        if (pre?.err === 'AlreadyProcessed' && signature && (await this.landed(signature))) return signature;
        if ((pre?.err === 'AlreadyProcessed' || pre?.err === 'BlockhashNotFound') && attempt < 3) {
          avoid = blockhash;
          continue;
        }
        if (pre) throw failureOf(pre.err, pre.logs, what);
        throw new ChainRejected(`${what}: the chain refused the transaction: ${e.message}`, { cause: e });
      }
    }
  }

  /** Whether the chain knows the signature (one status read; false when it cannot say). */
  private async landed(signature: string): Promise<boolean> {
    try {
      const res = await this.rpc.call('getSignatureStatuses', [[signature], { searchTransactionHistory: true }], Statuses);
      return res.value[0] !== null && res.value[0] !== undefined;
    } catch {
      return false;
    }
  }

  /** Polls the signature's status until confirmed; throws the mapped failure if it failed. */
  async confirm(what: string, signature: string): Promise<void> {
    const deadline = Date.now() + this.opts.confirmTimeoutMs;
    for (;;) {
      const res = await this.rpc.call('getSignatureStatuses', [[signature], { searchTransactionHistory: true }], Statuses);
      const st = res.value[0];
      if (st && (st.confirmationStatus === 'confirmed' || st.confirmationStatus === 'finalized')) {
        if (st.err !== null && st.err !== undefined) throw failureOf(st.err, [], what);
        return;
      }
      if (Date.now() + this.opts.pollMs > deadline) throw new ChainUnavailable(`${what}: ${signature} not confirmed within ${this.opts.confirmTimeoutMs} ms`);
      await new Promise((r) => setTimeout(r, this.opts.pollMs));
    }
  }

  /** A recent blockhash, cached briefly; never `avoid` (waits for the next slot's hash instead). */
  private async recentBlockhash(avoid: string | null): Promise<string> {
    const now = Date.now();
    if (this.blockhash && this.blockhash.value !== avoid && now - this.blockhash.at < this.opts.blockhashTtlMs) return this.blockhash.value;
    const deadline = now + this.opts.confirmTimeoutMs;
    for (;;) {
      const res = await this.rpc.call('getLatestBlockhash', [{ commitment: 'confirmed' }], LatestBlockhash);
      if (res.value.blockhash !== avoid || Date.now() > deadline) {
        this.blockhash = { value: res.value.blockhash, at: Date.now() };
        return res.value.blockhash;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

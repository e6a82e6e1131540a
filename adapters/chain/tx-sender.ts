/**
 * Sends a transaction and confirms it (batched status polls, `status-poller.ts`). Transactions
 * are compiled once and signed with Node's Ed25519 (`signing.ts`); one blockhash fetch serves
 * every sender that needs a fresh one at the same moment. Preflight is on, so most refusals come
 * back at send time with the program's logs; an identical transaction already processed is the
 * same intent already on chain (its signature is returned: a duplicate is never reported as an
 * outage); an expired blockhash is re-signed over a newer one; a send whose answer was lost is
 * looked up by its signature before it is called failed.
 */
import * as v from 'valibot';
import type { Keypair, TransactionInstruction } from '@solana/web3.js';
import { ChainRejected, ChainUnavailable } from './port.ts';
import { type RpcClient, RpcError } from './rpc-client.ts';
import { signTransaction } from './signing.ts';
import { StatusPoller, type Confirmed } from './status-poller.ts';
import { failureOf, preflightOf } from './tx-outcome.ts';

const LatestBlockhash = v.object({ context: v.object({ slot: v.number() }), value: v.object({ blockhash: v.string(), lastValidBlockHeight: v.number() }) });

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
  private fetching: Promise<string> | null = null;
  private readonly poller: StatusPoller;

  constructor(
    private readonly rpc: RpcClient,
    private readonly opts: SenderOptions,
  ) {
    this.poller = new StatusPoller(rpc, { pollMs: opts.pollMs });
  }

  /** Sends `instructions` paid by `payer`, signed by `signers` too; resolves with the confirmed signature. */
  async sendAndConfirm(what: string, instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[] = []): Promise<string> {
    return (await this.land(what, instructions, payer, signers)).signature;
  }

  /** Like `sendAndConfirm`, also saying which slot the transaction landed in. */
  async land(what: string, instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[] = []): Promise<{ signature: string; slot: number }> {
    const signature = await this.send(what, instructions, payer, signers);
    const { slot } = await this.confirm(what, signature);
    return { signature, slot };
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
      const { wire, signature } = signTransaction(
        instructions,
        payer,
        signers.filter((s) => !s.publicKey.equals(payer.publicKey)),
        blockhash,
      );
      try {
        return await this.rpc.call('sendTransaction', [wire.toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed' }], v.string());
      } catch (e) {
        if (!(e instanceof RpcError)) {
          // the answer was lost (timeout, reset): the transaction may have landed all the same
          if (e instanceof ChainUnavailable && (await this.poller.known(signature))) return signature;
          throw e;
        }
        const pre = preflightOf(e);
        if (pre?.err === 'AlreadyProcessed' && (await this.poller.known(signature))) return signature;
        if ((pre?.err === 'AlreadyProcessed' || pre?.err === 'BlockhashNotFound') && attempt < 3) {
          avoid = blockhash;
          continue;
        }
        if (pre) throw failureOf(pre.err, pre.logs, what);
        throw new ChainRejected(`${what}: the chain refused the transaction: ${e.message}`, { cause: e });
      }
    }
  }

  /** Waits until the signature is confirmed; throws the mapped failure if the transaction failed. Resolves with its slot. */
  async confirm(what: string, signature: string): Promise<Confirmed> {
    const status = await this.poller.confirm(what, signature, this.opts.confirmTimeoutMs);
    if (status.err !== null && status.err !== undefined) throw failureOf(status.err, [], what);
    return status;
  }

  /** A recent blockhash, cached briefly and fetched once for every concurrent caller; never `avoid` (waits for the next slot's hash instead). */
  private async recentBlockhash(avoid: string | null): Promise<string> {
    const cached = this.blockhash;
    if (cached && cached.value !== avoid && Date.now() - cached.at < this.opts.blockhashTtlMs) return cached.value;
    if (!this.fetching) {
      this.fetching = this.fetchBlockhash(avoid).finally(() => {
        this.fetching = null;
      });
    }
    const hash = await this.fetching;
    // a fetch started for another caller may have returned the hash this one must avoid
    return hash === avoid ? this.fetchBlockhash(avoid) : hash;
  }

  private async fetchBlockhash(avoid: string | null): Promise<string> {
    const deadline = Date.now() + this.opts.confirmTimeoutMs;
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

/**
 * The landing engine's front (docs/architecture.md#landing-transactions): every transaction the
 * gateway sends is built once, signed with Node's Ed25519 (`signing.ts`) over a recent blockhash,
 * sent once with preflight (a refusal comes back at once with the program's logs), then tracked
 * by `landing/tracker.ts`, which rebroadcasts the same bytes until they are confirmed or can no
 * longer land, and only then signs the intent again. `AlreadyProcessed` on a send is the same
 * bytes already taken: not an error. A caller that must answer someone in time (`POST /api/bet`)
 * takes `within()`: past its deadline the intent goes on landing, and the caller learns that the
 * outcome is not known yet, with the signature (`OutcomeUnknown`), or that the chain did not
 * answer at all (`ChainUnavailable`).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import type { Keypair, TransactionInstruction } from '@solana/web3.js';
import { ChainRejected, ChainUnavailable, NotSent } from './port.ts';
import type { PubSub } from './pubsub.ts';
import { ChainUnreachable, RateLimited, RpcError, type RpcClient } from './rpc-client.ts';
import { signTransaction } from './signing.ts';
import { failureOf, preflightOf } from './tx-outcome.ts';
import type { Logger } from '../../kernel/log.ts';
import type { IntentStore, PendingIntent } from '../store/intents/port.ts';
import { Blockhashes, type RecentBlockhash } from './landing/blockhashes.ts';
import { ComputeBudget, type BudgetOptions } from './landing/budget.ts';
import { IntentTracker, isConfirmed, SignatureStatuses, type Confirmed, type Intent, type Landed, type LandingStats, type Signed } from './landing/tracker.ts';

export type { Landed, LandingStats } from './landing/tracker.ts';

/** Pace of the engine. */
export interface SenderOptions {
  /** a watched signature without bytes (an airdrop) fails after this long unconfirmed */
  confirmTimeoutMs: number;
  /** pause between status polls */
  pollMs: number;
  /** a fetched blockhash is reused this long */
  blockhashTtlMs: number;
  /** the same bytes are sent again after this long unconfirmed [700] */
  resendMs?: number;
  /** signings of one intent at most: the first and re-signs after expiries [3] */
  maxSigns?: number;
  /** confirmations from the signature subscription too (besides the polls) */
  pubsub?: PubSub;
  /** where intents sent under a key are recorded until they land (a restart resumes them) */
  intents?: IntentStore;
  /** a compute-unit limit from simulation and a priority fee on every transaction (a real cluster) */
  budget?: BudgetOptions;
  log?: Logger;
}

/** Options of one `submit`. */
export interface SubmitOptions {
  /** told of every signing (the first, and each after an expiry) */
  onSigned?: (signature: string) => void;
  /** records the intent under this key (one at a time per key) until it lands, fails or expires */
  key?: string;
  /** whether its effect is already seen on chain (e.g. the mirror holds the bet it creates): no more resends, only its status is awaited */
  seen?: () => boolean;
  /** whether its caller has been answered that it was not sent: then it never is (checked before its record and its first send) */
  abandoned?: () => boolean;
}

/** An intent on its way: the signature it has now (a re-sign changes it), and its outcome. */
export interface Landing {
  signature(): string;
  /** whether the chain answered anything about it yet */
  heard(): boolean;
  /**
   * whether its bytes were handed to a send (they may have reached the chain, answered or not):
   * from then on, its caller can only be told that its outcome is not known, never that nothing happened
   */
  sent(): boolean;
  /** nothing heard about it, and the chain cannot be reached now (connection refused) */
  unreachable(): boolean;
  /**
   * whether its current signing is recorded in the intent store as this engine's: then no other
   * engine is landing anything under its key (false without a key or a store)
   */
  claimed(): boolean;
  readonly outcome: Promise<Landed>;
}

/**
 * An intent not sent because another engine (another gateway sharing the intent store) is landing
 * one under the same key and it can still land.
 */
export class IntentKeyBusy extends Error {
  constructor(
    what: string,
    readonly key: string,
  ) {
    super(`${what}: not sent; another gateway is landing a transaction for ${key}`);
    this.name = 'IntentKeyBusy';
  }
}

/** Removals of a record never sent, tried this often and this many times (a minute: longer than a failover, as long as its blockhash lives). */
const FORGET_RETRY_MS = 1_000;
const FORGET_ATTEMPTS = 60;

/** A failure that is the chain's answer to a first send. */
const preflightFailure = (what: string, e: RpcError): Error => {
  const pre = preflightOf(e);
  return pre ? failureOf(pre.err, pre.logs, what) : new ChainRejected(`${what}: the chain refused the transaction: ${e.message}`, { cause: e });
};

/** Builds, signs, sends and lands transactions. */
export class TxSender {
  private readonly blockhashes: Blockhashes;
  private readonly tracker: IntentTracker;
  private readonly budget: ComputeBudget | null;
  /** this engine's name in the intents it records */
  private readonly owner = randomUUID();

  constructor(
    private readonly rpc: RpcClient,
    private readonly opts: SenderOptions,
  ) {
    const resendMs = opts.resendMs ?? 700;
    this.blockhashes = new Blockhashes(rpc, { ttlMs: opts.blockhashTtlMs, heightMs: Math.min(1000, resendMs), waitForNewMs: opts.confirmTimeoutMs });
    this.tracker = new IntentTracker(
      rpc,
      this.blockhashes,
      { pollMs: opts.pollMs, resendMs, maxSigns: opts.maxSigns ?? 3, unreachableMs: opts.confirmTimeoutMs },
      opts.pubsub ?? null,
    );
    this.budget = opts.budget ? new ComputeBudget(rpc, opts.budget) : null;
  }

  /** A recent blockhash (the one the sender signs over now) and the last block height it is valid at. */
  recentBlockhash(): Promise<RecentBlockhash> {
    return this.blockhashes.recent();
  }

  /** the engine's counters */
  get stats(): LandingStats {
    return this.tracker.stats;
  }

  /** intents not confirmed yet */
  pending(): Array<{ what: string; signature: string; signs: number; ageMs: number }> {
    return this.tracker.list();
  }

  /** Sends `instructions` paid by `payer`, signed by `signers` too; resolves with the confirmed signature. */
  async sendAndConfirm(what: string, instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[] = []): Promise<string> {
    return (await this.land(what, instructions, payer, signers)).signature;
  }

  /** Lands the transaction; resolves with its signature and slot once confirmed, or throws its failure. */
  land(what: string, instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[] = []): Promise<Landed> {
    return this.submit(what, instructions, payer, signers).outcome;
  }

  /**
   * Starts landing the transaction: signed, sent with preflight (a refusal rejects the outcome),
   * then tracked until it lands or can no longer.
   */
  submit(what: string, instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[] = [], options: SubmitOptions = {}): Landing {
    const cosigners = signers.filter((s) => !s.publicKey.equals(payer.publicKey));
    const { key } = options;
    const since = Date.now();
    let current = '';
    let heard = false;
    let sent = false;
    let claimed = false;
    /** signs over a recent blockhash, records it under its key, sends it with preflight; a blockhash the node does not know yet is replaced */
    const signAndSend = async (avoid: string | null): Promise<{ signed: Signed; taken: boolean; retryAt: number }> => {
      for (let attempt = 0; ; attempt++) {
        const { blockhash, lastValidBlockHeight } = await this.blockhashes.recent(avoid);
        const budgeted = this.budget ? await this.budget.apply(what, instructions, payer, cosigners, blockhash) : null;
        const { wire, signature } = signTransaction(budgeted?.instructions ?? instructions, payer, cosigners, blockhash);
        const priorityFeeLamports = budgeted?.units ? Math.ceil((budgeted.price * budgeted.units) / 1_000_000) : 0;
        const s: Signed = { wire, signature, lastValidBlockHeight, priorityFeeLamports };
        if (options.abandoned?.()) throw new NotSent(what, 'busy', Date.now() - since);
        // recorded before the bytes leave: a kill right after the send still finds them
        if (key && this.opts.intents) {
          const store = this.opts.intents;
          claimed = await this.record(store, {
            key,
            what,
            signature,
            wire: wire.toString('base64'),
            lastValidBlockHeight,
            since,
            owner: this.owner,
          }).catch((err: unknown) => {
            // not sent: a record the store may still have written (its answer lost) must not stand for bytes that never left
            this.forgetOnceAnswered(store, key, signature);
            throw err;
          });
          // another gateway is landing a transaction under this key: nothing is sent (docs/architecture.md#answering-from-the-mirror)
          if (!claimed) throw new IntentKeyBusy(what, key);
        }
        current = signature;
        options.onSigned?.(signature);
        // answered "not sent" while its record was written: it is not sent, and its record goes
        if (options.abandoned?.()) {
          if (key && this.opts.intents) this.forgetOnceAnswered(this.opts.intents, key, signature);
          throw new NotSent(what, 'busy', Date.now() - since);
        }
        sent = true;
        const first = await this.firstSend(what, s).catch((err: unknown) => {
          // refused at once, or never delivered (connection refused): these bytes did not land
          sent = false;
          throw err;
        });
        heard ||= first.heard;
        if (first.outcome === 'stale' && attempt < 3) {
          avoid = blockhash;
          continue;
        }
        return { signed: s, taken: first.outcome === 'taken', retryAt: first.retryAt };
      }
    };
    let tracked: Intent | null = null;
    const outcome = new Promise<Landed>((resolve, reject) => {
      signAndSend(null).then((first) => {
        heard ||= first.taken;
        tracked = this.track(what, first.signed, since, first.retryAt, async () => (await signAndSend(null)).signed, resolve, reject, options.seen);
      }, reject);
    });
    const forget = () => {
      if (key && current) this.forget(key, current);
    };
    outcome.then(forget, forget);
    return {
      signature: () => current,
      heard: () => heard,
      sent: () => sent,
      unreachable: () => !heard && (tracked?.unreachable ?? false),
      claimed: () => claimed,
      outcome: outcome.then((l) => {
        heard = true;
        return l;
      }),
    };
  }

  /**
   * Resumes an intent recorded by an earlier run: the same bytes sent again until they land or
   * their blockhash expires. It is never signed again (the instructions are not kept, and the
   * caller who wanted it was answered long ago): an expiry ends it.
   */
  resume(intent: PendingIntent): Landing {
    const signed: Signed = { wire: Buffer.from(intent.wire, 'base64'), signature: intent.signature, lastValidBlockHeight: intent.lastValidBlockHeight };
    const outcome = new Promise<Landed>((resolve, reject) => {
      const expired = () => Promise.reject(new Error(`${intent.what}: resumed after a restart; its blockhash expired unlanded (${intent.signature})`));
      this.track(intent.what, signed, intent.since, 0, expired, resolve, reject);
    });
    const forget = () => this.forget(intent.key, intent.signature);
    outcome.then(forget, forget);
    return { signature: () => intent.signature, heard: () => true, sent: () => true, unreachable: () => false, claimed: () => false, outcome };
  }

  private track(
    what: string,
    signed: Signed,
    since: number,
    retryAt: number,
    resign: () => Promise<Signed>,
    resolve: (l: Landed) => void,
    reject: (err: unknown) => void,
    seen?: () => boolean,
  ): Intent {
    const now = Date.now();
    const intent: Intent = {
      what,
      signed,
      signs: 1,
      startedAt: since,
      heardAt: now,
      taken: false,
      unreachable: false,
      nextSendAt: retryAt || now + (this.opts.resendMs ?? 700),
      subscription: null,
      subscribeAt: 0, // set by the tracker
      resign,
      resolve,
      reject: (err) => {
        // its caller decides what the failure means (a retry, an answer); the log says what it was
        this.opts.log?.debug({ what, signature: intent.signed.signature, err: err instanceof Error ? err.message : err }, 'transaction did not land');
        reject(err);
      },
      ...(seen ? { seen } : {}),
    };
    this.tracker.add(intent);
    return intent;
  }

  /**
   * Records an intent as this engine's; when another engine's record holds the key, asks again
   * with the chain's block height, so that a record which can no longer land is taken over.
   */
  private async record(store: IntentStore, intent: PendingIntent): Promise<boolean> {
    if (await store.put(intent)) return true;
    return store.put(intent, await this.blockhashes.height());
  }

  /** Drops the record of an intent that landed, failed or cannot land; a failure to drop it only means a restart resends bytes that cannot land twice. */
  private forget(key: string, signature: string): void {
    this.opts.intents
      ?.remove(key, signature)
      .catch((err: unknown) => this.opts.log?.warn({ err, key, signature }, 'could not drop a landed intent from the store'));
  }

  /**
   * Removes a record whose write failed and whose bytes were never sent, retrying while the store
   * does not answer (a failover): the write may have reached the store all the same, and another
   * gateway would take the record for a placement under way (docs/architecture.md#answering-from-the-mirror).
   */
  private forgetOnceAnswered(store: IntentStore, key: string, signature: string, attempt = 0): void {
    store.remove(key, signature).catch((err: unknown) => {
      if (attempt >= FORGET_ATTEMPTS) {
        this.opts.log?.warn({ err, key, signature }, 'could not drop the record of an intent that was never sent');
        return;
      }
      setTimeout(() => this.forgetOnceAnswered(store, key, signature, attempt + 1), FORGET_RETRY_MS).unref();
    });
  }

  /**
   * Waits until a signature sent elsewhere (an airdrop, once per faucet top-up) is confirmed, asking
   * its status every `pollMs`; throws the mapped failure if it failed, ChainUnavailable after
   * `confirmTimeoutMs`. Resolves with its slot. Transactions this sender sends are confirmed by the
   * tracker's batched polls instead.
   */
  async confirm(what: string, signature: string): Promise<Confirmed> {
    const deadline = Date.now() + this.opts.confirmTimeoutMs;
    for (;;) {
      const status = await this.rpc.call('getSignatureStatuses', [[signature], { searchTransactionHistory: true }], SignatureStatuses).then(
        (r) => r.value[0],
        () => null,
      ); // no answer: asked again until the deadline
      if (status && isConfirmed(status)) {
        if (status.err !== null && status.err !== undefined) throw failureOf(status.err, [], what);
        return { slot: status.slot, err: null };
      }
      if (Date.now() + this.opts.pollMs > deadline) throw new ChainUnavailable(`${what}: ${signature} not confirmed within ${this.opts.confirmTimeoutMs} ms`);
      await sleep(this.opts.pollMs);
    }
  }

  /**
   * The first send, with preflight: `taken` (the node answered its signature, or says it has it
   * already), `stale` (the node does not know the blockhash yet: sign again), `unanswered` (no
   * answer, or a 429: the tracker sends it again; the bytes may have been taken all the same).
   * A refusal throws, and so does a chain the bytes could not reach at all (`ChainUnreachable`).
   */
  private async firstSend(what: string, s: Signed): Promise<{ outcome: 'taken' | 'stale' | 'unanswered'; heard: boolean; retryAt: number }> {
    this.tracker.stats.sends++;
    try {
      await this.rpc.call('sendTransaction', [s.wire.toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed', maxRetries: 0 }], v.string());
      return { outcome: 'taken', heard: true, retryAt: 0 };
    } catch (e) {
      if (e instanceof RateLimited) return { outcome: 'unanswered', heard: true, retryAt: Date.now() + e.retryAfterMs };
      // the bytes never left (connection refused): nothing to land, and the caller learns it at once
      if (e instanceof ChainUnreachable) throw e;
      if (!(e instanceof RpcError)) {
        if (e instanceof ChainUnavailable) return { outcome: 'unanswered', heard: false, retryAt: 0 };
        throw e;
      }
      const pre = preflightOf(e)?.err;
      if (pre === 'AlreadyProcessed') return { outcome: 'taken', heard: true, retryAt: 0 };
      if (pre === 'BlockhashNotFound') return { outcome: 'stale', heard: true, retryAt: 0 };
      throw preflightFailure(what, e);
    }
  }
}

/**
 * The landing engine's loop (docs/architecture.md#landing-transactions): every transaction sent
 * and not yet confirmed is an intent, tracked until it lands, fails on chain, or cannot land any
 * more. Each turn asks the chain for the statuses of every intent at once (`getSignatureStatuses`,
 * 256 per call), rebroadcasts the same signed bytes of each intent due for it (every `resendMs`;
 * right after a 429 once its Retry-After passed), and, once an intent has gone unconfirmed for a
 * while, reads the block height: past the intent's `lastValidBlockHeight` and still unknown to the
 * chain, the old bytes can never land, and only then is the intent signed again over a new
 * blockhash. An intent that the polls have not confirmed within `subscribeAfterMs`, or whose
 * status poll went unanswered, is also watched by a signature subscription (when there is PubSub),
 * which confirms as soon as it notifies; on a healthy chain the polls (or the mirror, for a
 * placement) answer first, and no subscription is made (docs/architecture.md#landing-transactions).
 */
import * as v from 'valibot';
import { ChainUnavailable, type LandingReport } from '../port.ts';
import type { PubSub, Subscription } from '../pubsub.ts';
import { ChainUnreachable, RateLimited, RpcError, type RpcClient } from '../rpc-client.ts';
import { failureOf, preflightOf } from '../tx-outcome.ts';
import type { Blockhashes } from './blockhashes.ts';

/** The answer of getSignatureStatuses. */
export const SignatureStatuses = v.object({
  context: v.object({ slot: v.number() }),
  value: v.array(v.nullable(v.object({ slot: v.number(), err: v.unknown(), confirmationStatus: v.optional(v.nullable(v.string())) }))),
});

/** Most signatures in one getSignatureStatuses (the RPC's limit). */
const STATUS_BATCH = 256;

/** A confirmed transaction's status: the slot it landed in and its error (null on success). */
export interface Confirmed {
  slot: number;
  err: unknown;
}

/** Whether a status says confirmed (or finalized). */
export const isConfirmed = (st: { confirmationStatus?: string | null | undefined } | null | undefined): boolean =>
  st?.confirmationStatus === 'confirmed' || st?.confirmationStatus === 'finalized';

const SignatureNotification = v.object({ context: v.object({ slot: v.number() }), value: v.object({ err: v.unknown() }) });

/** Signed bytes of an intent. */
export interface Signed {
  wire: Buffer;
  signature: string;
  lastValidBlockHeight: number;
  /** the priority fee it pays if it lands, lamports (unit price x unit limit) */
  priorityFeeLamports?: number;
}

/** Where an intent landed. */
export interface Landed {
  signature: string;
  slot: number;
}

/** Pace of the loop. */
export interface TrackerOptions {
  /** status polls of waiting intents */
  pollMs: number;
  /** the same bytes sent again after this long without a confirmation */
  resendMs: number;
  /** signings of one intent at most (the first and the re-signs after expiries) */
  maxSigns: number;
  /** an intent that heard nothing from the chain for this long fails as unreachable */
  unreachableMs: number;
  /** an intent not confirmed by the polls within this long is watched by a signature subscription too [1500] */
  subscribeAfterMs?: number;
}

/** How long the status polls have to confirm an intent before it is subscribed to as well. */
const SUBSCRIBE_AFTER_MS = 1_500;

/** Counters of the engine (docs/operations.md#metrics). */
export type LandingStats = Omit<LandingReport, 'pending' | 'landingMs'> & { landingMs: number[] };

/** An intent being tracked. */
export interface Intent {
  readonly what: string;
  signed: Signed;
  signs: number;
  readonly startedAt: number;
  /** unix ms of the last answer from the chain about it (a 429 is an answer) */
  heardAt: number;
  /** the chain took its bytes at least once (a send answered its signature) */
  taken: boolean;
  /** the last call about it could not reach the chain at all (connection refused) */
  unreachable: boolean;
  nextSendAt: number;
  subscription: Subscription | null;
  /** unix ms from which it is watched by a signature subscription too, if still unconfirmed (0: at once) */
  subscribeAt: number;
  /** a subscription was asked for on its current signing */
  subscribing?: boolean;
  /** whether its effect is already seen on chain (the account it creates exists): sending it again cannot help, its status is awaited */
  readonly seen?: () => boolean;
  /** signs it again over a new blockhash, sends it with preflight (throws a refusal), returns the bytes */
  readonly resign: () => Promise<Signed>;
  resolve(landed: Landed): void;
  reject(err: unknown): void;
}

export class IntentTracker {
  private readonly intents = new Set<Intent>();
  private timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private immediate = false;
  private running = false;
  private soonAfterTurn = false;
  readonly stats: LandingStats = { sends: 0, landed: 0, failed: 0, expired: 0, resigned: 0, priorityFeeLamports: 0, landingMs: [] };

  constructor(
    private readonly rpc: RpcClient,
    private readonly blockhashes: Blockhashes,
    private readonly opts: TrackerOptions,
    private readonly pubsub: PubSub | null,
  ) {}

  /** intents waiting now */
  get pending(): number {
    return this.intents.size;
  }

  /** The signatures of the intents waiting now, with what they are. */
  list(): Array<{ what: string; signature: string; signs: number; ageMs: number }> {
    const now = Date.now();
    return [...this.intents].map((i) => ({ what: i.what, signature: i.signed.signature, signs: i.signs, ageMs: now - i.startedAt }));
  }

  /** Tracks `intent` until it lands or cannot. */
  add(intent: Intent): void {
    intent.subscribeAt = Date.now() + (this.opts.subscribeAfterMs ?? SUBSCRIBE_AFTER_MS);
    this.intents.add(intent);
    this.schedule(true);
  }

  private subscribe(intent: Intent): void {
    if (!this.pubsub || intent.subscribing) return;
    intent.subscribing = true;
    const signature = intent.signed.signature;
    this.pubsub
      .subscribe('signatureSubscribe', [signature, { commitment: 'confirmed' }], (result) => {
        const n = v.safeParse(SignatureNotification, result);
        if (n.success && intent.signed.signature === signature) this.settle(intent, n.output.context.slot, n.output.value.err ?? null);
      })
      .then(
        (sub) => {
          if (this.intents.has(intent) && intent.signed.signature === signature) intent.subscription = sub;
          else sub.unsubscribe();
        },
        () => undefined, // the status polls confirm it all the same
      );
  }

  private unsubscribe(intent: Intent): void {
    intent.subscription?.unsubscribe();
    intent.subscription = null;
    intent.subscribing = false;
  }

  private settle(intent: Intent, slot: number, err: unknown): void {
    if (!this.intents.delete(intent)) return;
    this.unsubscribe(intent);
    if (err !== null && err !== undefined) {
      this.stats.failed++;
      intent.reject(failureOf(err, [], intent.what));
      return;
    }
    this.stats.landed++;
    this.stats.priorityFeeLamports += intent.signed.priorityFeeLamports ?? 0;
    this.stats.landingMs.push(Date.now() - intent.startedAt);
    if (this.stats.landingMs.length > 1000) this.stats.landingMs.splice(0, this.stats.landingMs.length - 1000);
    intent.resolve({ signature: intent.signed.signature, slot });
  }

  private fail(intent: Intent, err: unknown): void {
    if (!this.intents.delete(intent)) return;
    this.unsubscribe(intent);
    this.stats.failed++;
    intent.reject(err);
  }

  /** The next turn: after `pollMs`, or in this turn of the event loop when an intent is new (`soon`). */
  private schedule(soon = false): void {
    if (this.running) {
      this.soonAfterTurn ||= soon; // a new intent is asked for right after the turn under way
      return;
    }
    if (this.intents.size === 0) return;
    if (this.timer && (!soon || this.immediate)) return;
    if (this.timer) clearTimeout(this.timer as NodeJS.Timeout);
    this.immediate = soon;
    this.timer = soon ? setImmediate(() => this.run()) : setTimeout(() => this.run(), this.opts.pollMs);
  }

  private run(): void {
    this.timer = null;
    this.immediate = false;
    this.running = true;
    this.turn()
      .catch(() => undefined) // each step turns its failures into the state of the intents it concerns
      .finally(() => {
        this.running = false;
        const soon = this.soonAfterTurn;
        this.soonAfterTurn = false;
        this.schedule(soon);
      });
  }

  private async turn(): Promise<void> {
    const intents = [...this.intents];
    await this.pollStatuses(intents);
    const now = Date.now();
    const waiting = intents.filter((i) => this.intents.has(i));
    for (const i of waiting) if (now >= i.subscribeAt) this.subscribe(i);
    const due = waiting.filter((i) => now >= i.nextSendAt && !i.seen?.());
    await Promise.all([...due.map((i) => this.rebroadcast(i)), this.checkExpiries(waiting)]);
    for (const i of waiting) {
      if (this.intents.has(i) && now - i.heardAt > this.opts.unreachableMs) {
        this.fail(i, new ChainUnavailable(`${i.what}: the chain did not answer for ${this.opts.unreachableMs} ms (${i.signed.signature})`));
      }
    }
  }

  private async pollStatuses(intents: Intent[]): Promise<void> {
    for (let at = 0; at < intents.length; at += STATUS_BATCH) {
      const batch = intents.slice(at, at + STATUS_BATCH);
      let statuses: v.InferOutput<typeof SignatureStatuses>['value'];
      try {
        statuses = (await this.rpc.call('getSignatureStatuses', [batch.map((i) => i.signed.signature)], SignatureStatuses)).value;
      } catch (err) {
        if (err instanceof RateLimited) for (const i of batch) i.heardAt = Date.now();
        for (const i of batch) {
          i.unreachable = err instanceof ChainUnreachable;
          i.subscribeAt = 0; // the polls do not answer: the subscription may
        }
        continue; // the chain did not answer: asked again next turn
      }
      const now = Date.now();
      batch.forEach((intent, j) => {
        intent.heardAt = now;
        intent.unreachable = false;
        const st = statuses[j];
        if (st && isConfirmed(st)) this.settle(intent, st.slot, st.err ?? null);
      });
    }
  }

  /** The same bytes again, without preflight (the first send had it): a node that has them ignores them. */
  private async rebroadcast(intent: Intent): Promise<void> {
    intent.nextSendAt = Date.now() + this.opts.resendMs;
    this.stats.sends++;
    try {
      await this.rpc.call('sendTransaction', [intent.signed.wire.toString('base64'), { encoding: 'base64', skipPreflight: true, maxRetries: 0 }], v.string());
      intent.heardAt = Date.now();
      intent.taken = true;
      intent.unreachable = false;
    } catch (err) {
      intent.unreachable = err instanceof ChainUnreachable;
      if (err instanceof RateLimited) {
        intent.heardAt = Date.now();
        intent.nextSendAt = Date.now() + err.retryAfterMs;
      } else if (err instanceof RpcError) {
        intent.heardAt = Date.now();
        // AlreadyProcessed: it landed (the status poll says so); BlockhashNotFound: the expiry check decides
        if (preflightOf(err)?.err === 'BlockhashNotFound') intent.nextSendAt = 0;
      }
      // no answer: tried again at the next resend
    }
  }

  /** Intents unconfirmed for a resend period or more: past their lastValidBlockHeight, signed again. */
  private async checkExpiries(intents: Intent[]): Promise<void> {
    const now = Date.now();
    const old = intents.filter((i) => now - i.startedAt >= this.opts.resendMs);
    if (old.length === 0) return;
    let height: number;
    try {
      height = await this.blockhashes.height();
    } catch {
      return; // asked again next turn
    }
    const expired = old.filter((i) => height > i.signed.lastValidBlockHeight && this.intents.has(i));
    for (const intent of expired) await this.expire(intent);
  }

  private async expire(intent: Intent): Promise<void> {
    // a last look with the whole history: a status that came late means it landed after all
    let status;
    try {
      status = (await this.rpc.call('getSignatureStatuses', [[intent.signed.signature], { searchTransactionHistory: true }], SignatureStatuses)).value[0];
    } catch {
      return;
    }
    if (status) {
      if (isConfirmed(status)) this.settle(intent, status.slot, status.err ?? null);
      return; // processed, not confirmed yet: wait for it
    }
    this.stats.expired++;
    if (intent.signs >= this.opts.maxSigns) {
      this.fail(intent, new ChainUnavailable(`${intent.what}: not landed; ${intent.signs} signings expired unlanded (last ${intent.signed.signature})`));
      return;
    }
    this.unsubscribe(intent);
    try {
      intent.signed = await intent.resign();
    } catch (err) {
      // the chain refused the new signing at preflight (the state moved on): that is the outcome
      if (!(err instanceof ChainUnavailable) || err instanceof RpcError) this.fail(intent, err);
      return; // no answer: the old bytes stay, expired; the next turn tries again
    }
    intent.signs++;
    this.stats.resigned++;
    this.stats.sends++;
    intent.heardAt = Date.now();
    intent.nextSendAt = Date.now() + this.opts.resendMs;
    intent.subscribeAt = Date.now() + (this.opts.subscribeAfterMs ?? SUBSCRIBE_AFTER_MS);
  }
}

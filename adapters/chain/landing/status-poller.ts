/**
 * Confirmation of many transactions with few RPC calls: every signature waiting to be confirmed
 * is asked for in one `getSignatureStatuses` (up to 256 per call) per poll. A signature not asked
 * for yet is asked for at once (in the turn it arrived in, or as soon as the poll under way
 * returns); one the chain did not confirm yet is asked again every `pollMs`.
 *
 * @example
 *   const poller = new StatusPoller(rpc, { pollMs: 25 });
 *   const status = await poller.confirm('place_bet', signature, 30_000); // { slot, err }
 */
import * as v from 'valibot';
import { ChainUnavailable } from '../port.ts';
import type { RpcClient } from '../rpc-client.ts';

/** The answer of getSignatureStatuses (the landing engine's tracker reads it too). */
export const SignatureStatuses = v.object({
  context: v.object({ slot: v.number() }),
  value: v.array(v.nullable(v.object({ slot: v.number(), err: v.unknown(), confirmationStatus: v.optional(v.nullable(v.string())) }))),
});

/** A confirmed transaction's status: the slot it landed in and its error (null on success). */
export interface Confirmed {
  slot: number;
  err: unknown;
}

interface Waiting {
  what: string;
  deadline: number;
  timeoutMs: number;
  resolve: (c: Confirmed) => void;
  reject: (err: Error) => void;
}

/** Most signatures in one getSignatureStatuses (the RPC's limit). */
export const STATUS_BATCH = 256;

/** Confirms signatures by batched status polls. */
export class StatusPoller {
  private readonly waiting = new Map<string, Waiting[]>();
  /** signatures waiting that no poll has asked for yet */
  private readonly unasked = new Set<string>();
  private scheduled: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private polling = false;

  constructor(
    private readonly rpc: RpcClient,
    private readonly opts: { pollMs: number },
  ) {}

  /** Resolves once `signature` is confirmed (its `err` may say it failed); ChainUnavailable after `timeoutMs`. */
  confirm(what: string, signature: string, timeoutMs: number): Promise<Confirmed> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(signature) ?? [];
      list.push({ what, deadline: Date.now() + timeoutMs, timeoutMs, resolve, reject });
      this.waiting.set(signature, list);
      this.unasked.add(signature);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.polling || this.waiting.size === 0) return;
    this.scheduled = this.unasked.size > 0 ? setImmediate(() => this.run()) : setTimeout(() => this.run(), this.opts.pollMs);
  }

  private run(): void {
    this.scheduled = null;
    this.polling = true;
    // poll() turns every failure into a rejection of the waiter it concerns
    this.poll()
      .catch(() => undefined)
      .finally(() => {
        this.polling = false;
        this.schedule();
      });
  }

  private async poll(): Promise<void> {
    const signatures = [...this.waiting.keys()];
    this.unasked.clear();
    for (let i = 0; i < signatures.length; i += STATUS_BATCH) {
      const batch = signatures.slice(i, i + STATUS_BATCH);
      let statuses: v.InferOutput<typeof SignatureStatuses>['value'] | null = null;
      try {
        statuses = (await this.rpc.call('getSignatureStatuses', [batch, { searchTransactionHistory: true }], SignatureStatuses)).value;
      } catch {
        statuses = null; // the chain did not answer: keep waiting until each one's deadline
      }
      const now = Date.now();
      batch.forEach((signature, j) => {
        const st = statuses?.[j];
        const list = this.waiting.get(signature) ?? [];
        if (st && (st.confirmationStatus === 'confirmed' || st.confirmationStatus === 'finalized')) {
          this.waiting.delete(signature);
          this.unasked.delete(signature);
          for (const w of list) w.resolve({ slot: st.slot, err: st.err ?? null });
          return;
        }
        const left = list.filter((w) => {
          if (now + this.opts.pollMs <= w.deadline) return true;
          w.reject(new ChainUnavailable(`${w.what}: ${signature} not confirmed within ${w.timeoutMs} ms`));
          return false;
        });
        if (left.length === 0) {
          this.waiting.delete(signature);
          this.unasked.delete(signature);
        } else this.waiting.set(signature, left);
      });
    }
  }
}

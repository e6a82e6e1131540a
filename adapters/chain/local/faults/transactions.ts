/**
 * The fault profile's transaction side (docs/operations.md#a-fault-profile): `sendTransaction`
 * as a busy cluster answers it. A send that would pass (preflight runs as without a profile, and
 * a failing one is still refused) may be answered with its signature and never executed
 * (`drop`), each send of the same bytes drawn anew, so a client that resends lands it in the
 * end; and a passing send is executed `landDelaySlots` slots after it was accepted, its status
 * null until then. Resending bytes that are queued or landed answers the same signature and
 * queues nothing (with preflight on, landed bytes are refused AlreadyProcessed as always). A
 * queued transaction whose blockhash expired before its slot came is dropped, as on a cluster;
 * the queue lives in memory, so a restart loses it (landed transactions are in the journal).
 * In a slot that forks (`rollback.ts`), the first passing send is shown and never executed.
 */
import type { Logger } from '../../../../kernel/log.ts';
import { decodeWire } from '../execution.ts';
import type { LocalNode } from '../node.ts';
import { preflightFailure } from '../rpc-failure.ts';
import { base58 } from '../svm.ts';
import type { WireFacts } from '../wire.ts';
import type { FaultCounters } from './counters.ts';
import type { FaultProfile } from './profile.ts';
import type { Rollbacks } from './rollback.ts';

/** A send accepted and waiting for its slot. */
interface Queued {
  wire: Uint8Array;
  blockhash: string;
  /** the slot it is executed in */
  due: number;
}

/** What `LocalNode.submit` refuses before executing, checked without executing (the send is not going to run now). */
function preflight(node: LocalNode, wire: Uint8Array, facts: WireFacts, signature: string, skipPreflight: boolean): void {
  if (node.knows(signature)) throw preflightFailure({ err: 'AlreadyProcessed', logs: [], unitsConsumed: 0 });
  if (skipPreflight) {
    if (!node.isBlockhashValid(base58(facts.blockhash))) throw preflightFailure({ err: 'BlockhashNotFound', logs: [], unitsConsumed: 0 });
    return;
  }
  const sim = node.simulate(wire, { sigVerify: true, replaceRecentBlockhash: false });
  if (sim.err !== null) throw preflightFailure(sim);
}

/** Drops and delays sends. */
export class TransactionFaults {
  /** by signature, in the order accepted (so in the order due) */
  private readonly queue = new Map<string, Queued>();
  private readonly stopSlots: () => void;

  constructor(
    private readonly node: LocalNode,
    private readonly profile: Pick<FaultProfile, 'drop' | 'landDelaySlots'>,
    private readonly random: () => number,
    private readonly counters: FaultCounters,
    private readonly log: Logger,
    private readonly rollbacks: Rollbacks | null = null,
  ) {
    this.stopSlots = node.events.slots.add((slot) => this.landDue(slot));
  }

  /** sendTransaction under the profile: resolves with the signature, whatever becomes of the transaction. */
  async send(wire: Uint8Array, opts: { skipPreflight: boolean }): Promise<string> {
    const facts = decodeWire(wire);
    const signature = base58(facts.signature);
    if (this.queue.has(signature)) return signature;
    if (opts.skipPreflight && this.node.knows(signature)) return signature; // a cluster forwards it and drops the duplicate
    const dropped = this.profile.drop > 0 && this.random() < this.profile.drop;
    if (!dropped && this.rollbacks?.pending && this.showAndAbandon(wire, facts, signature, opts.skipPreflight)) return signature;
    if (!dropped && this.profile.landDelaySlots === 0) return this.node.submit(wire, opts);
    preflight(this.node, wire, facts, signature, opts.skipPreflight);
    if (dropped) {
      this.counters.dropped++;
      return signature;
    }
    this.queue.set(signature, { wire, blockhash: base58(facts.blockhash), due: this.node.slot + this.profile.landDelaySlots });
    this.counters.delayed++;
    return signature;
  }

  /**
   * Shows a passing send to `processed` subscribers and never executes it (the slot's fork);
   * false when it would fail (refused as preflight refuses it, unless preflight is skipped).
   */
  private showAndAbandon(wire: Uint8Array, facts: WireFacts, signature: string, skipPreflight: boolean): boolean {
    if (this.node.knows(signature)) throw preflightFailure({ err: 'AlreadyProcessed', logs: [], unitsConsumed: 0 });
    const sim = this.node.simulate(wire, { sigVerify: true, replaceRecentBlockhash: false });
    if (sim.err !== null) {
      if (skipPreflight) return false; // it lands as failed, or is refused, on the ordinary path
      throw preflightFailure(sim);
    }
    const writable = new Set(facts.writable.map((k) => base58(k)));
    this.rollbacks?.show(
      this.node.slot,
      sim.accountsAfter().filter((a) => writable.has(a.address)),
    );
    return true;
  }

  /** Forgets the queue (a stopped chain loses what had not landed, as a cluster does). */
  stop(): void {
    this.stopSlots();
    this.queue.clear();
  }

  /** Executes the queued transactions due in `slot`, in the order they were accepted. */
  private landDue(slot: number): void {
    for (const [signature, q] of this.queue) {
      if (q.due > slot) break;
      this.queue.delete(signature);
      if (!this.node.isBlockhashValid(q.blockhash)) {
        this.counters.expired++;
        continue;
      }
      // preflight passed when it was accepted; what fails now lands as failed, fee charged, as on a cluster
      this.node.submit(q.wire, { skipPreflight: true }).catch((err: unknown) => {
        this.log.debug({ err, signature }, 'a delayed transaction was refused when its slot came');
      });
    }
  }
}

/**
 * The local chain's state machine: LiteSVM plus what a validator adds around it — slots
 * that advance on a timer with a Clock that follows wall time, a window of recent
 * blockhashes, signature statuses, preflight, and durability through the journal and the
 * snapshots it is folded into (`compaction.ts`, `restore.ts`; docs/architecture.md#the-local-chain).
 * Running one transaction is in `execution.ts`, when to compact in `compaction-schedule.ts`.
 */
import { BLOCKHASH_WINDOW, BlockhashWindow } from './blockhashes.ts';
import type { ChainState, CompactionReport } from './compaction.ts';
import { CompactionSchedule } from './compaction-schedule.ts';
import { accountImage, applyAccountImages, decodeWire, runTransaction, setClock, type Run } from './execution.ts';
import { Journal, type AccountImage, type JournalRecord, type StatusEntry } from './journal.ts';
import { NodeEvents } from './node-events.ts';
import { PrioritizationFees } from './prioritization-fees.ts';
import { restoreChainState } from './restore.ts';
import { SignatureIndex, type SignatureEntry, type SignatureQuery } from './signature-index.ts';
import { SignatureStatuses } from './statuses.ts';
import { RPC_CODES, RpcFailure, preflightFailure } from './rpc-failure.ts';
import { RawSvm, base58, keyBytes } from './svm.ts';
import { txErrorJson } from './tx-errors.ts';
import { computeUnitPrice } from './wire.ts';

import type { LocalNodeOptions } from './node-options.ts';

export type { LocalNodeOptions };

const SLOT_MARK_EVERY = 25;
/**
 * slots skipped after a restart, so blockhashes handed out before it are never reissued and every
 * one of them is past its lastValidBlockHeight (the last slot journaled may be a slot mark behind)
 */
const RESTART_SLOT_GAP = BLOCKHASH_WINDOW + SLOT_MARK_EVERY + 1;

/** A LiteSVM-backed chain with slots, blockhashes, statuses and a durable journal. */
export class LocalNode implements ChainState {
  private readonly journal: Journal;
  private svm: RawSvm;
  private slotNow = 0;
  private readonly blockhashes: BlockhashWindow;
  private readonly statuses = new SignatureStatuses();
  /** every account that exists beyond a fresh LiteSVM's own (what a snapshot holds) */
  private readonly live = new Set<string>();
  /** durable transactions by the accounts they wrote (getSignaturesForAddress) */
  readonly signatureIndex: SignatureIndex;
  private readonly compactions: CompactionSchedule;
  private closed = false;
  private ticker: NodeJS.Timeout | null = null;
  /**
   * the accounts each committed transaction (or airdrop) wrote, once durable and before its status
   * is visible (a deleted account has `lamports` null); each landing, just before its status is
   * visible; each new slot
   */
  readonly events: NodeEvents;
  /** compute-unit prices of recent slots (getRecentPrioritizationFees) */
  readonly fees = new PrioritizationFees();

  private constructor(private readonly opts: LocalNodeOptions) {
    this.events = new NodeEvents(opts.log);
    this.journal = new Journal(opts.dir);
    this.svm = RawSvm.create();
    this.blockhashes = new BlockhashWindow(opts.genesisHash);
    this.signatureIndex = new SignatureIndex(opts.signatureIndex);
    this.compactions = new CompactionSchedule({
      dir: opts.dir,
      journal: this.journal,
      state: this,
      log: opts.log,
      compactEvery: opts.compactEvery ?? 2_000,
      slice: opts.compactionSlice ?? 250,
      liveCount: () => this.live.size,
      stopped: () => this.closed,
      onStep: opts.onCompactionStep,
    });
  }

  /**
   * Loads (or creates) the chain in `dir` (`restore.ts`). A compaction starts in the background
   * when the journal is long, when an interrupted compaction left several segments, or to
   * migrate a legacy snapshot.
   */
  static open(opts: LocalNodeOptions): LocalNode {
    const started = performance.now();
    const node = new LocalNode(opts);
    const loaded = restoreChainState(opts.dir, node.journal, {
      images: (images) => {
        applyAccountImages(node.svm, images);
        node.track(images);
      },
      status: (sig, st) => node.statuses.restore(sig, st),
      signatures: (address, entries) => node.signatureIndex.restore(address, entries),
      legacy: (svm, addresses) => {
        node.svm = svm;
        for (const address of addresses) node.live.add(address);
      },
      record: (rec) => {
        applyAccountImages(node.svm, rec.accounts ?? []);
        node.track(rec.accounts ?? []);
        if (rec.signature) {
          node.statuses.restore(rec.signature, { slot: rec.slot, err: rec.err ?? null });
          node.index(rec, rec.signature);
        }
      },
    });
    node.signatureIndex.settle();
    node.svm.configure({ blockhashCheck: false, transactionHistory: 0n, sigverify: true });
    node.slotNow = loaded.source !== 'journal' || loaded.replayed > 0 ? loaded.slot + RESTART_SLOT_GAP : 1;
    node.enterSlot(node.slotNow);
    opts.log.info(
      { slot: node.slotNow, replayed: loaded.replayed, from: loaded.source, accounts: node.live.size, ms: Math.round(performance.now() - started) },
      'local chain state loaded',
    );
    if (loaded.source === 'legacy snapshot' || node.journal.segments > 1 || node.compactions.journalIsLong()) node.compactions.inBackground();
    return node;
  }

  /** Starts advancing slots on wall time. */
  start(): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => this.advanceSlot(), this.opts.slotMs ?? 400);
    this.ticker.unref();
  }

  /** Stops the slot timer and closes the journal (a compaction under way stops where it is; the next open finishes the job). */
  close(): void {
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    this.journal.close();
  }

  get slot(): number {
    return this.slotNow;
  }

  /** Moves to the next slot (also used by setup to make a fresh deployment executable). */
  advanceSlot(): void {
    this.enterSlot(this.slotNow + 1);
    if (this.slotNow % SLOT_MARK_EVERY === 0) this.journal.append({ slot: this.slotNow });
    this.events.slots.emit(this.slotNow);
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    return this.blockhashes.latest();
  }

  isBlockhashValid(hash: string): boolean {
    return this.blockhashes.has(hash);
  }

  account(addr: string): AccountImage | null {
    const acc = this.svm.account(keyBytes(addr)); // zero-lamport accounts do not exist
    return acc ? { address: addr, ...acc } : null;
  }

  programAccounts(owner: string): AccountImage[] {
    return this.svm.programAccounts(keyBytes(owner));
  }

  rentExempt(size: number): bigint {
    return this.svm.minimumBalance(BigInt(size));
  }

  status(signature: string): StatusEntry | null {
    return this.statuses.get(signature);
  }

  /** Whether the transaction was executed already (its status published or about to be). */
  knows(signature: string): boolean {
    return this.statuses.known(signature);
  }

  /** One page of the durable transactions that wrote `address`, newest first (getSignaturesForAddress). */
  signaturesFor(address: string, query: SignatureQuery): SignatureEntry[] {
    return this.signatureIndex.query(address, query, (sig) => this.statuses.get(sig));
  }

  /** Every account that exists now beyond a fresh LiteSVM's own (what compaction writes). */
  liveAddresses(): string[] {
    return [...this.live];
  }

  /** Every signature status known now, durable or about to be. */
  statusEntries(): [string, StatusEntry][] {
    return this.statuses.entries();
  }

  /** Calls `cb` once the signature has a (durable) status — at once when it already has one. Returns an unsubscribe. */
  watchSignature(signature: string, cb: (status: StatusEntry) => void): () => void {
    return this.statuses.watch(signature, cb);
  }

  /** Runs a transaction without committing it (simulateTransaction). */
  simulate(wire: Uint8Array, opts: { sigVerify: boolean; replaceRecentBlockhash: boolean }): Run & { replacementBlockhash: string | null } {
    const facts = decodeWire(wire);
    if (!opts.replaceRecentBlockhash && !this.blockhashes.has(base58(facts.blockhash))) {
      return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0, accountsAfter: () => [], replacementBlockhash: null };
    }
    const sim = runTransaction(this.svm, wire, facts, 'simulate', opts.sigVerify);
    return { ...sim, replacementBlockhash: opts.replaceRecentBlockhash ? this.latestBlockhash().blockhash : null };
  }

  /**
   * Executes a transaction (sendTransaction): preflight unless skipped, then commit, then
   * journal — the signature is returned, and its status shown, only once the outcome is on
   * disk (one fsync serves every transaction executed in the same event-loop turn).
   */
  async submit(wire: Uint8Array, opts: { skipPreflight: boolean }): Promise<string> {
    const facts = decodeWire(wire);
    const signature = base58(facts.signature);
    if (this.statuses.known(signature)) throw preflightFailure({ err: 'AlreadyProcessed', logs: [], unitsConsumed: 0 });
    if (!this.blockhashes.has(base58(facts.blockhash))) throw preflightFailure({ err: 'BlockhashNotFound', logs: [], unitsConsumed: 0 });
    this.tickClock();
    // Preflight without running the transaction twice: execute, and on failure put back the fee
    // payer (a failed transaction changes nothing but the fee it charged), as if it never ran.
    const payer = facts.writable[0] as Uint8Array;
    const before = opts.skipPreflight ? null : accountImage(this.svm, payer);
    const result = runTransaction(this.svm, wire, facts, 'send', true);
    if (result.err !== null && before) {
      applyAccountImages(this.svm, [before]);
      throw preflightFailure(result);
    }
    const accounts = facts.writable.map((k) => accountImage(this.svm, k));
    await this.commit({ slot: this.slotNow, signature, err: result.err, time: this.unixNow(), accounts }, computeUnitPrice(wire, facts));
    return signature;
  }

  /** Credits lamports out of thin air (requestAirdrop). */
  async airdrop(to: string, amount: bigint): Promise<string> {
    this.tickClock();
    const res = this.svm.airdrop(keyBytes(to), amount);
    if (res === null || 'err' in res) {
      throw new RpcFailure(RPC_CODES.internal, `airdrop failed: ${res === null ? 'no result' : JSON.stringify(txErrorJson(res.err()))}`);
    }
    const signature = base58(res.signature());
    await this.commit({ slot: this.slotNow, signature, err: null, time: this.unixNow(), accounts: [accountImage(this.svm, keyBytes(to))] });
    return signature;
  }

  /** Journals a record; resolves once it is durable, and only then publishes its status. */
  private async commit(record: JournalRecord, price = 0n): Promise<void> {
    const sig = record.signature;
    const entry = { slot: record.slot, err: record.err ?? null };
    if (sig) this.statuses.pend(sig, entry);
    this.track(record.accounts ?? []); // in the same turn as the write, which a compaction may be about to read
    await this.journal.appendDurably(record);
    if (record.accounts && record.accounts.length > 0) this.events.accounts.emit(record.slot, record.accounts);
    if (sig) {
      this.index(record, sig);
      this.fees.record(record.slot, price, record.accounts?.map((a) => a.address) ?? []);
      this.events.landings.emit({ signature: sig, ...entry });
      this.statuses.publish(sig, entry);
    }
    if (!this.compactions.running && this.compactions.journalIsLong()) this.compactions.inBackground();
  }

  /**
   * Folds the journal into a fresh snapshot while transactions keep landing (`compaction.ts`);
   * resolves with what it did, or null when the node was closed first. A call while one runs
   * shares it.
   */
  compact(): Promise<CompactionReport | null> {
    return this.compactions.compact();
  }

  /** Keeps the live-account set in step with what a transaction wrote. */
  private track(accounts: AccountImage[]): void {
    for (const a of accounts) {
      if (a.lamports === null) this.live.delete(a.address);
      else this.live.add(a.address);
    }
  }

  private index(record: JournalRecord, signature: string): void {
    const accounts = record.accounts ?? [];
    if (accounts.length === 0) return;
    this.signatureIndex.add(
      accounts.map((a) => a.address),
      { signature, slot: record.slot, err: record.err ?? null, blockTime: record.time ?? null },
    );
  }

  private enterSlot(slot: number): void {
    this.slotNow = slot;
    this.blockhashes.enter(slot);
    this.fees.enter(slot);
    this.tickClock();
  }

  private unixNow(): number {
    return Math.floor((this.opts.now ?? Date.now)() / 1000);
  }

  /** The Clock sysvar follows wall time (LiteSVM does not move it by itself). */
  private tickClock(): void {
    setClock(this.svm, this.slotNow, this.unixNow());
  }
}

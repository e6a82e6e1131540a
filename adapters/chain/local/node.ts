/**
 * The local chain's state machine: LiteSVM plus what a validator adds around it — slots
 * that advance on a timer with a Clock that follows wall time, a window of recent
 * blockhashes, signature statuses, preflight, and durability through the `Journal`
 * (design: "The local chain").
 */
import { Clock } from 'litesvm';
import type { Logger } from '../../../runtime/log.ts';
import { BlockhashWindow } from './blockhashes.ts';
import { Journal, type AccountImage, type JournalRecord, type StatusEntry } from './journal.ts';
import { RPC_CODES, RpcFailure, preflightFailure, type Simulation } from './rpc-failure.ts';
import { RawSvm, base58, keyBytes } from './svm.ts';
import { txErrorJson } from './tx-errors.ts';
import { MalformedTransaction, readWire, type WireFacts } from './wire.ts';

/** How a local chain is opened. */
export interface LocalNodeOptions {
  /** directory holding the journal and snapshot */
  dir: string;
  genesisHash: string;
  log: Logger;
  /** slot length; 400 ms like a cluster */
  slotMs?: number;
  /** fold the journal into a snapshot after this many records */
  compactEvery?: number;
  /** wall time the Clock sysvar follows, unix ms [Date.now]; benchmarks pin it to stage bets that expire together */
  now?: () => number;
}

const SLOTS_PER_EPOCH = 432_000;
/** slots skipped after a restart, so blockhashes handed out before it are never reissued */
const RESTART_SLOT_GAP = 100;
const SLOT_MARK_EVERY = 25;
const MAX_STATUSES = 50_000;
const SYSTEM_PROGRAM = '11111111111111111111111111111111';


/** A LiteSVM-backed chain with slots, blockhashes, statuses and a durable journal. */
export class LocalNode {
  private readonly journal: Journal;
  private svm: RawSvm;
  private slotNow = 0;
  private readonly blockhashes: BlockhashWindow;
  private readonly statuses = new Map<string, StatusEntry>();
  /** executed, journaled, waiting for the next fsync before anyone hears of them */
  private readonly pending = new Map<string, StatusEntry>();
  private readonly watchers = new Map<string, Set<(status: StatusEntry) => void>>();
  private ticker: NodeJS.Timeout | null = null;
  private readonly compactEvery: number;
  private readonly accountListeners = new Set<(slot: number, accounts: AccountImage[]) => void>();

  private constructor(private readonly opts: LocalNodeOptions) {
    this.journal = new Journal(opts.dir);
    this.compactEvery = opts.compactEvery ?? 2_000;
    this.svm = RawSvm.create();
    this.blockhashes = new BlockhashWindow(opts.genesisHash);
  }

  /** Loads (or creates) the chain in `dir`, replays the journal, and folds it into a fresh snapshot. */
  static open(opts: LocalNodeOptions): LocalNode {
    const node = new LocalNode(opts);
    const { snapshot, records } = node.journal.load();
    let slot = 1;
    if (snapshot) {
      node.svm = RawSvm.fromBytes(snapshot.svm);
      slot = snapshot.meta.slot;
      for (const [sig, st] of snapshot.meta.statuses) node.statuses.set(sig, st);
    }
    node.svm.configure({ blockhashCheck: false, transactionHistory: 0n, sigverify: true });
    for (const rec of records) {
      node.applyImages(rec.accounts ?? []);
      if (rec.signature) node.statuses.set(rec.signature, { slot: rec.slot, err: rec.err ?? null });
      slot = Math.max(slot, rec.slot);
    }
    node.slotNow = snapshot || records.length > 0 ? slot + RESTART_SLOT_GAP : 1;
    node.enterSlot(node.slotNow);
    if (records.length > 0) node.compact();
    opts.log.info({ slot: node.slotNow, replayed: records.length, fromSnapshot: snapshot !== null }, 'local chain state loaded');
    return node;
  }

  /** Starts advancing slots on wall time. */
  start(): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => this.advanceSlot(), this.opts.slotMs ?? 400);
    this.ticker.unref();
  }

  /** Stops the slot timer and closes the journal. */
  close(): void {
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
    return this.statuses.get(signature) ?? null;
  }

  /** Calls `cb` once the signature has a (durable) status — at once when it already has one. Returns an unsubscribe. */
  watchSignature(signature: string, cb: (status: StatusEntry) => void): () => void {
    const known = this.statuses.get(signature);
    if (known) {
      queueMicrotask(() => cb(known));
      return () => undefined;
    }
    const set = this.watchers.get(signature) ?? new Set();
    set.add(cb);
    this.watchers.set(signature, set);
    return () => {
      set.delete(cb);
      if (set.size === 0) this.watchers.delete(signature);
    };
  }

  /**
   * Calls `cb` with the accounts each committed transaction (or airdrop) wrote, once they are
   * durable and before the transaction's status is visible (accountSubscribe/programSubscribe).
   * A deleted account has `lamports` null. Returns an unsubscribe.
   */
  watchAccounts(cb: (slot: number, accounts: AccountImage[]) => void): () => void {
    this.accountListeners.add(cb);
    return () => this.accountListeners.delete(cb);
  }

  /** Runs a transaction without committing it (simulateTransaction). */
  simulate(wire: Uint8Array, opts: { sigVerify: boolean; replaceRecentBlockhash: boolean }): Simulation & { replacementBlockhash: string | null } {
    const facts = this.decode(wire);
    if (!opts.replaceRecentBlockhash && !this.blockhashes.has(base58(facts.blockhash))) {
      return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0, replacementBlockhash: null };
    }
    const sim = this.run(wire, facts, 'simulate', opts.sigVerify);
    return { ...sim, replacementBlockhash: opts.replaceRecentBlockhash ? this.latestBlockhash().blockhash : null };
  }

  /**
   * Executes a transaction (sendTransaction): preflight unless skipped, then commit, then
   * journal — the signature is returned, and its status shown, only once the outcome is on
   * disk (one fsync serves every transaction executed in the same event-loop turn).
   */
  async submit(wire: Uint8Array, opts: { skipPreflight: boolean }): Promise<string> {
    const facts = this.decode(wire);
    const signature = base58(facts.signature);
    if (this.statuses.has(signature) || this.pending.has(signature)) throw preflightFailure({ err: 'AlreadyProcessed', logs: [], unitsConsumed: 0 });
    if (!this.blockhashes.has(base58(facts.blockhash))) throw preflightFailure({ err: 'BlockhashNotFound', logs: [], unitsConsumed: 0 });
    this.tickClock();
    // Preflight without running the transaction twice: execute, and on failure put back the fee
    // payer (a failed transaction changes nothing but the fee it charged), as if it never ran.
    const payer = facts.writable[0] as Uint8Array;
    const before = opts.skipPreflight ? null : this.image(payer);
    const result = this.run(wire, facts, 'send', true);
    if (result.err !== null && before) {
      this.applyImages([before]);
      throw preflightFailure(result);
    }
    await this.commit({ slot: this.slotNow, signature, err: result.err, accounts: facts.writable.map((k) => this.image(k)) });
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
    await this.commit({ slot: this.slotNow, signature, err: null, accounts: [this.image(keyBytes(to))] });
    return signature;
  }

  /** Journals a record; resolves once it is durable, and only then publishes its status. */
  private async commit(record: JournalRecord): Promise<void> {
    const sig = record.signature;
    const entry = { slot: record.slot, err: record.err ?? null };
    if (sig) this.pending.set(sig, entry);
    await this.journal.appendDurably(record);
    if (record.accounts && record.accounts.length > 0) {
      for (const listener of this.accountListeners) {
        try {
          listener(record.slot, record.accounts);
        } catch (err) {
          this.opts.log.error({ err }, 'account listener failed');
        }
      }
    }
    if (sig) {
      this.pending.delete(sig);
      this.statuses.set(sig, entry);
      const waiting = this.watchers.get(sig);
      this.watchers.delete(sig);
      for (const cb of waiting ?? []) cb(entry);
      if (this.statuses.size > MAX_STATUSES) {
        const oldest = this.statuses.keys().next().value;
        if (oldest !== undefined) this.statuses.delete(oldest);
      }
    }
    if (this.journal.length >= this.compactEvery) this.compact();
  }

  /** Folds the journal into a snapshot of the whole LiteSVM state. */
  compact(): void {
    const started = performance.now();
    this.journal.compact({ slot: this.slotNow, statuses: [...this.statuses, ...this.pending] }, this.svm.toBytes());
    this.opts.log.debug({ ms: Math.round(performance.now() - started) }, 'journal compacted');
  }

  private decode(wire: Uint8Array): WireFacts {
    try {
      return readWire(wire);
    } catch (err) {
      if (err instanceof MalformedTransaction) throw new RpcFailure(RPC_CODES.invalidParams, err.message);
      throw err;
    }
  }

  private run(wire: Uint8Array, facts: WireFacts, mode: 'simulate' | 'send', sigVerify: boolean): Simulation {
    this.svm.setSigverify(sigVerify);
    let res;
    try {
      res = mode === 'simulate' ? this.svm.simulate(wire, facts.version) : this.svm.send(wire, facts.version);
    } catch (err) {
      // the runtime could not even sanitize it (e.g. a signature count that does not match the header)
      throw new RpcFailure(RPC_CODES.signatureVerification, 'Transaction signature verification failure', { reason: (err as Error).message });
    } finally {
      this.svm.setSigverify(true);
    }
    const meta = 'meta' in res ? res.meta() : res;
    const err = 'err' in res ? txErrorJson(res.err()) : null;
    if (err === 'SignatureFailure') throw new RpcFailure(RPC_CODES.signatureVerification, 'Transaction signature verification failure');
    return { err, logs: meta.logs(), unitsConsumed: Number(meta.computeUnitsConsumed()) };
  }

  private image(key: Uint8Array): AccountImage {
    const addr = base58(key);
    const acc = this.svm.account(key);
    if (!acc) return { address: addr, lamports: null, owner: SYSTEM_PROGRAM, executable: false, data: new Uint8Array() };
    return { address: addr, ...acc };
  }

  /** Restores account images; executables last, so an upgradeable program finds its programdata. */
  private applyImages(images: AccountImage[]): void {
    const ordered = [...images.filter((a) => !a.executable), ...images.filter((a) => a.executable)];
    for (const a of ordered) this.svm.setAccount(keyBytes(a.address), { lamports: a.lamports ?? 0n, owner: a.owner, executable: a.executable, data: a.data });
  }

  private enterSlot(slot: number): void {
    this.slotNow = slot;
    this.blockhashes.enter(slot);
    this.tickClock();
  }

  /** The Clock sysvar follows wall time (LiteSVM does not move it by itself). */
  private tickClock(): void {
    const slot = BigInt(this.slotNow);
    const epoch = slot / BigInt(SLOTS_PER_EPOCH);
    this.svm.setClock(new Clock(slot, 0n, epoch, epoch, BigInt(Math.floor((this.opts.now ?? Date.now)() / 1000))));
  }
}

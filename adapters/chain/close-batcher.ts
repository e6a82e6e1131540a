/**
 * Settlement transactions packed: the closes asked for in the same moment go out several per
 * transaction (as many as fit), earliest expiry first, with a bounded number of transactions in
 * flight (docs/architecture.md#the-chain-mirror: closes are packed several per transaction). When the
 * chain refuses one instruction of a pack, that close alone gets the refusal and the others are
 * sent again; an outage fails the whole pack (each caller retries on its own schedule).
 *
 * @example
 *   const batcher = new CloseBatcher((ixs) => sender.sendAndConfirmAt('close_bet', ixs, relayer));
 *   const { signature, slot } = await batcher.submit({ expireTime: 1763700015n, instruction: closeBetIx(...) });
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { ChainRejected, ProgramRefusal } from './port.ts';

/** One close to send. */
export interface CloseRequest {
  /** earlier expiries go first */
  expireTime: bigint;
  instruction: TransactionInstruction;
  /** instructions that must run right before it in the same transaction (e.g. creating a token account) */
  before?: TransactionInstruction[];
  /**
   * an instruction the close needs first in its transaction, shared by every close of the pack
   * (the Ed25519 instruction verifying the exit ticks: docs/decisions.md#signed-prices); closes
   * are packed only with closes of the same `key`, and this instruction is at index 0
   */
  prelude?: { key: string; instruction: TransactionInstruction };
}

/** Where a close landed. */
export interface Landed {
  signature: string;
  slot: number;
}

interface Pending extends CloseRequest {
  resolve: (landed: Landed) => void;
  reject: (err: unknown) => void;
}

/** Tuning of the batcher. */
export interface BatcherOptions {
  /** closes per transaction [7: what fits in 1232 bytes with distinct bettors] */
  perTransaction?: number;
  /** transactions in flight at once [4] */
  inFlight?: number;
  /** closes per transaction that carries a prelude [4: what fits in 1232 bytes beside the Ed25519 instruction of two ticks] */
  perTransactionWithPrelude?: number;
}

/** Sends queued closes in packs. */
export class CloseBatcher {
  private readonly queue: Pending[] = [];
  private running = 0;
  private scheduled = false;
  private readonly perTx: number;
  private readonly perTxWithPrelude: number;
  private readonly maxInFlight: number;

  constructor(
    private readonly send: (instructions: TransactionInstruction[]) => Promise<Landed>,
    opts: BatcherOptions = {},
  ) {
    this.perTx = opts.perTransaction ?? 7;
    this.perTxWithPrelude = opts.perTransactionWithPrelude ?? 4;
    this.maxInFlight = opts.inFlight ?? 4;
  }

  /** Queues a close; resolves once its transaction is confirmed. */
  submit(request: CloseRequest): Promise<Landed> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...request, resolve, reject });
      this.schedule();
    });
  }

  /** Closes waiting to be sent. */
  get waiting(): number {
    return this.queue.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // closes asked for in the same turn of the event loop share transactions
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.queue.length === 0) return;
    this.queue.sort((a, b) => (a.expireTime < b.expireTime ? -1 : a.expireTime > b.expireTime ? 1 : 0));
    while (this.running < this.maxInFlight && this.queue.length > 0) {
      const pack = this.nextPack();
      this.running++;
      // sendPack answers every close of the pack itself, failures included: nothing is left to reject
      this.sendPack(pack)
        .catch((err: unknown) => {
          for (const p of pack) p.reject(err);
        })
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }

  /** The first close waiting and the next ones that share its prelude (or, without one, have none), as many as fit. */
  private nextPack(): Pending[] {
    const key = this.queue[0]?.prelude?.key;
    const most = key === undefined ? this.perTx : this.perTxWithPrelude;
    const pack: Pending[] = [];
    for (let i = 0; i < this.queue.length && pack.length < most;) {
      const p = this.queue[i] as Pending;
      if (p.prelude?.key === key) pack.push(...this.queue.splice(i, 1));
      else i++;
    }
    return pack;
  }

  private async sendPack(pack: Pending[]): Promise<void> {
    const instructions: TransactionInstruction[] = [];
    const owner: number[] = []; // instruction index -> pack index
    const prelude = pack[0]?.prelude;
    if (prelude) {
      instructions.push(prelude.instruction);
      owner.push(-1);
    }
    pack.forEach((p, i) => {
      for (const ix of [...(p.before ?? []), p.instruction]) {
        instructions.push(ix);
        owner.push(i);
      }
    });
    try {
      const landed = await this.send(instructions);
      for (const p of pack) p.resolve(landed);
    } catch (err) {
      const at = err instanceof ProgramRefusal || err instanceof ChainRejected ? err.instruction : null;
      const found = at === null ? undefined : owner[at];
      const culprit = found === -1 ? undefined : found;
      if (culprit === undefined || pack.length === 1) {
        for (const p of pack) p.reject(err);
        return;
      }
      // one close was refused: it alone hears so, the rest go again
      pack[culprit]?.reject(err);
      this.queue.unshift(...pack.filter((_, i) => i !== culprit));
    }
  }
}

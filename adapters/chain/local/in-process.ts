/**
 * JSON-RPC to the local chain without a socket: used by its own fresh-dir setup, before it listens,
 * and by a gateway in the same process (`npm start`). The chain's work on a request (a transaction's
 * execution is synchronous) runs in slices of at most `sliceMs` per event-loop turn: a burst of
 * placements does not hold the loop for all of its executions at once, so the gateway's answers,
 * its shedding of what it cannot take and new connections are served between slices
 * (docs/decisions.md#the-embedded-chain-works-in-slices).
 */
import type { JsonRpcTransport } from '../rpc-client.ts';
import type { JsonRpcDispatcher } from './json-rpc.ts';

/** The chain's work in one event-loop turn at most, unless configured, ms. */
export const SLICE_MS = 8;

/**
 * One turn's budget: callers enter one after another while the slice lasts; past it the rest wait
 * for the next turn (first come, first served).
 */
export class Slices {
  private sliceStart = -1;
  /** callers let in whose synchronous work is not done yet (one at a time) */
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private drainScheduled = false;

  constructor(private readonly sliceMs: number) {}

  /** Resolves when the caller may work: at once when nobody works or waits and the slice has time left. */
  enter(): Promise<void> | undefined {
    if (this.active === 0 && this.waiting.length === 0 && this.open()) {
      this.active++;
      return undefined;
    }
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.active === 0) this.scheduleDrain();
    return turn;
  }

  /** Called once the caller's synchronous work is done: the next one goes while the slice lasts. */
  leave(): void {
    this.active--;
    if (this.waiting.length === 0) return;
    if (this.open()) this.next();
    else this.scheduleDrain();
  }

  private next(): void {
    this.active++;
    this.waiting.shift()?.();
  }

  /** Whether the current turn's slice has time left (a new turn starts a new slice). */
  private open(): boolean {
    const now = performance.now();
    if (this.sliceStart < 0) {
      this.sliceStart = now;
      setImmediate(() => (this.sliceStart = -1)); // the next turn starts a new slice
      return true;
    }
    return now - this.sliceStart < this.sliceMs;
  }

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.sliceStart = -1;
      if (this.waiting.length > 0 && this.active === 0 && this.open()) this.next();
    });
  }
}

/** A transport that hands requests straight to the dispatcher (same validation and answers as over HTTP). */
export class InProcessTransport implements JsonRpcTransport {
  readonly description = 'in-process local chain';
  private readonly slices: Slices;

  constructor(
    private readonly dispatcher: JsonRpcDispatcher,
    sliceMs = SLICE_MS,
  ) {
    this.slices = new Slices(sliceMs);
  }

  async exchange(body: object): Promise<unknown> {
    await this.slices.enter();
    let answer: Promise<string>;
    try {
      // round-trip through JSON so the answer is exactly what a socket would carry; the chain's
      // synchronous work (a transaction's execution) runs inside this call
      answer = this.dispatcher.handleText(JSON.stringify(body));
    } finally {
      this.slices.leave();
    }
    return JSON.parse(await answer) as unknown;
  }
}

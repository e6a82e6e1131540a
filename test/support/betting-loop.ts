/**
 * Bettors that bet in a loop, like players who bet again as soon as they may: each wallet posts a
 * bet, waits about one window after a 200 and a moment after anything else, and tries again,
 * until `stop()`. Every answer is kept (status, body, which gateway), so a test can check them
 * all against the chain afterwards.
 *
 * @example
 *   const loop = new BettingLoop({ wallets, gateway: () => base });
 *   loop.start();
 *   await sleep(60_000);
 *   await loop.stop();
 *   loop.answers.filter((a) => a.status >= 500);
 */
import { request, sleep } from './client-request.ts';

/** One answer to `POST /api/bet`. */
export interface BetAnswer {
  address: string;
  /** base URL of the gateway asked */
  gateway: string;
  status: number;
  body: any;
  /** unix ms the request was sent */
  sentAt: number;
  ms: number;
}

export interface BettingLoopOptions {
  wallets: readonly string[];
  /** the gateway to ask for the `attempt`-th bet of wallet `i` (attempts count from 0) */
  gateway(i: number, attempt: number): string;
  /** pause after a 200 [3100: a 3 s window and a little] */
  afterBetMs?: number;
  /** pause after any other answer [300] */
  afterRefusalMs?: number;
  /** ids answered 200 are added here too */
  placed?: Set<string>;
}

export class BettingLoop {
  readonly answers: BetAnswer[] = [];
  readonly placed: Set<string>;
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly o: BettingLoopOptions) {
    this.placed = o.placed ?? new Set();
  }

  start(): void {
    this.running = true;
    this.loops = this.o.wallets.map(async (address, i) => {
      await sleep(i * 37); // not all in the same millisecond
      for (let attempt = 0; this.running; attempt++) {
        const gateway = this.o.gateway(i, attempt);
        const sentAt = Date.now();
        const r = await request(gateway, 'POST', '/api/bet', { address, side: Math.random() < 0.5 ? 'UP' : 'DOWN', amountUnits: '100000000' });
        this.answers.push({ address, gateway, status: r.status, body: r.body, sentAt, ms: r.ms });
        if (r.status === 200) this.placed.add(String(r.body.id));
        await sleep(r.status === 200 ? (this.o.afterBetMs ?? 3_100) : (this.o.afterRefusalMs ?? 300));
      }
    });
  }

  /** Stops every loop after its current request; resolves once all stopped. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

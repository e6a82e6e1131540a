/**
 * Funded custodial wallets that bet in loops, like players who bet again as soon as they may:
 * each wallet posts a bet, waits out the bet's window after a 200 and a moment after anything
 * else, and tries again until `stop()`. Every answer is kept with its timing, so a benchmark can
 * count them and check them against the chain afterwards.
 */
import type { JsonClient } from '../../test/support/json-client.ts';
import { pool, sleep } from './measure.ts';

/** One answer to `POST /api/bet` (status 0: no answer, e.g. the connection failed or timed out). */
export interface BetAttempt {
  address: string;
  status: number;
  body: Record<string, unknown> | null;
  /** unix ms the request was sent */
  sentAt: number;
  ms: number;
}

/** `count` wallets made with `POST /api/wallet` and funded by the faucet (set-up, not measured: an outage answer is asked again). */
export async function fundedWallets(client: JsonClient, count: number, width = 8): Promise<string[]> {
  const patiently = async (method: string, path: string, body?: unknown) => {
    for (let attempt = 1; ; attempt++) {
      const r = await client.call(method, path, body).catch(() => ({ status: 0, body: null }));
      if (r.status === 200 || attempt === 8) return r;
      await sleep(1_000);
    }
  };
  const made: string[] = [];
  await pool(Array.from({ length: count }), width, async () => {
    const w = await patiently('POST', '/api/wallet', {});
    const address = w.body?.address;
    if (w.status !== 200 || typeof address !== 'string') throw new Error(`wallet not made: ${w.status} ${JSON.stringify(w.body)}`);
    const f = await patiently('GET', `/api/faucet/${address}`);
    if (f.status !== 200) throw new Error(`faucet refused ${address}: ${f.status} ${JSON.stringify(f.body)}`);
    made.push(address);
  });
  return made;
}

export interface BetLoopOptions {
  /** pause after a 200: the bet's window and a little */
  afterBetMs: number;
  /** pause after any other answer */
  afterRefusalMs: number;
  amountUnits: string;
}

/** The wallets betting in loops; `answers` holds every answer so far. */
export class BetLoop {
  readonly answers: BetAttempt[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly client: JsonClient,
    private readonly wallets: readonly string[],
    private readonly o: BetLoopOptions,
  ) {}

  start(): void {
    this.running = true;
    this.loops = this.wallets.map(async (address, i) => {
      await sleep(i * 37); // not all in the same millisecond
      while (this.running) {
        const sentAt = Date.now();
        const t = performance.now();
        const side = Math.random() < 0.5 ? 'UP' : 'DOWN';
        const r = await this.client.call('POST', '/api/bet', { address, side, amountUnits: this.o.amountUnits }).catch(() => ({ status: 0, body: null }));
        this.answers.push({ address, status: r.status, body: r.body, sentAt, ms: performance.now() - t });
        await this.pause(r.status === 200 ? this.o.afterBetMs : this.o.afterRefusalMs);
      }
    });
  }

  /** Stops every loop after its current request; resolves once all stopped. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Sleeps `ms`, cut short by `stop()`. */
  private async pause(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (this.running && Date.now() < until) await sleep(Math.min(100, until - Date.now()));
  }
}

/**
 * Recent blockhashes and the chain's block height for the landing engine
 * (docs/architecture.md#landing-transactions): a blockhash is fetched once for every sender that
 * needs one at the same moment and reused briefly; the block height is read at most once per
 * `heightMs`, for every transaction waiting to learn whether its blockhash has expired.
 */
import * as v from 'valibot';
import type { RpcClient } from '../rpc-client.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const LatestBlockhash = v.object({ context: v.object({ slot: v.number() }), value: v.object({ blockhash: v.string(), lastValidBlockHeight: v.number() }) });

/** A blockhash with the last block height at which a transaction signed over it can land. */
export interface RecentBlockhash {
  blockhash: string;
  lastValidBlockHeight: number;
}

export class Blockhashes {
  private cached: (RecentBlockhash & { at: number }) | null = null;
  private fetching: Promise<RecentBlockhash> | null = null;
  private heightRead: { value: number; at: number } | null = null;
  private heightFetch: Promise<number> | null = null;

  constructor(
    private readonly rpc: RpcClient,
    private readonly opts: { ttlMs: number; heightMs: number; waitForNewMs: number },
  ) {}

  /** A recent blockhash, never `avoid` (then it waits for the next slot's hash, up to `waitForNewMs`). */
  async recent(avoid: string | null = null): Promise<RecentBlockhash> {
    const c = this.cached;
    if (c && c.blockhash !== avoid && Date.now() - c.at < this.opts.ttlMs) return c;
    this.fetching ??= this.fetch(avoid).finally(() => {
      this.fetching = null;
    });
    const got = await this.fetching;
    // a fetch started for another caller may have returned the hash this one must avoid
    return got.blockhash === avoid ? this.fetch(avoid) : got;
  }

  /** The chain's block height (commitment confirmed), read at most once per `heightMs`. */
  async height(): Promise<number> {
    const h = this.heightRead;
    if (h && Date.now() - h.at < this.opts.heightMs) return h.value;
    this.heightFetch ??= this.rpc
      .call('getBlockHeight', [{ commitment: 'confirmed' }], v.number())
      .then((value) => {
        this.heightRead = { value, at: Date.now() };
        return value;
      })
      .finally(() => {
        this.heightFetch = null;
      });
    return this.heightFetch;
  }

  private async fetch(avoid: string | null): Promise<RecentBlockhash> {
    const deadline = Date.now() + this.opts.waitForNewMs;
    for (;;) {
      const { value } = await this.rpc.call('getLatestBlockhash', [{ commitment: 'confirmed' }], LatestBlockhash);
      if (value.blockhash !== avoid || Date.now() > deadline) {
        this.cached = { ...value, at: Date.now() };
        return value;
      }
      await sleep(100);
    }
  }
}

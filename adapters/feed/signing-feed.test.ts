import { Keypair } from '@solana/web3.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Listeners } from './listeners.ts';
import type { PriceFeed, PriceTick } from './port.ts';
import { memorySeqStore, PriceSigner } from './price-signer.ts';
import { SigningPriceFeed } from './signing-feed.ts';
import { verifyTick } from './tick-verify.ts';
import { log } from '../../kernel/log.ts';

/** A source the test ticks by hand. */
class HandFeed implements PriceFeed {
  private readonly listeners = new Listeners<PriceTick>(log);
  tick(price: string, ts: number): void {
    this.listeners.emit({ symbol: 'solusdt', price, ts });
  }
  onTick(listener: (tick: PriceTick) => void) {
    return this.listeners.add(listener);
  }
  start = async () => undefined;
  stop = async () => undefined;
}

afterEach(() => vi.useRealTimers());

describe('SigningPriceFeed', () => {
  it('signs every tick of its source with consecutive sequence numbers', async () => {
    const source = new HandFeed();
    const feed = new SigningPriceFeed(source, new PriceSigner(Keypair.generate(), memorySeqStore()), log);
    const out: PriceTick[] = [];
    feed.onTick((t) => out.push(t));
    await feed.start();
    source.tick('150', 1_000);
    source.tick('150.5', 1_400);
    expect(out.map((t) => [t.price, t.ts, t.signed?.seq])).toEqual([
      ['150.00000000', 1_000, 1],
      ['150.50000000', 1_400, 2],
    ]);
    expect(out.every((t) => verifyTick(t) === 'verified')).toBe(true);
    await feed.stop();
  });

  it('with a heartbeat: a quiet source has its last price signed again every second, until it has been quiet for holdMs', async () => {
    vi.useFakeTimers({ now: 10_000 });
    const source = new HandFeed();
    const feed = new SigningPriceFeed(source, new PriceSigner(Keypair.generate(), memorySeqStore()), log, { heartbeatMs: 1_000, holdMs: 3_500 });
    const out: PriceTick[] = [];
    feed.onTick((t) => out.push(t));
    await feed.start();
    source.tick('150', 10_000);
    await vi.advanceTimersByTimeAsync(500);
    source.tick('151', 10_500); // a tick of the source restarts the wait
    await vi.advanceTimersByTimeAsync(6_000);
    expect(out.map((t) => [t.price, t.ts, t.signed?.seq])).toEqual([
      ['150.00000000', 10_000, 1],
      ['151.00000000', 10_500, 2],
      ['151.00000000', 11_500, 3],
      ['151.00000000', 12_500, 4],
      ['151.00000000', 13_500, 5],
      // 14_500 is 4 s after the source's last tick: past holdMs, the source may be dead
    ]);
    source.tick('152', 16_500);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(out.slice(-2).map((t) => [t.price, t.ts])).toEqual([
      ['152.00000000', 16_500],
      ['152.00000000', 17_500],
    ]);
    await feed.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(out).toHaveLength(7); // nothing after stop
  });
});

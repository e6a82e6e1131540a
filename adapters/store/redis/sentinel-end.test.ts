/**
 * A Sentinel client that ioredis ends without its owner closing it is connected again
 * (adapters/store/redis/target.ts): its failover detector drops the connector while a
 * reconnection is asking the Sentinels, and ioredis would answer "Connection is closed." to every
 * command from then on. The test does what the detector does, many times while the primary is
 * down, and then asks for commands to work on the new primary. A client closed by its owner stays
 * closed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quietLog } from '../../../test/support/quiet-log.ts';
import { startSentinelSet, type SentinelSet } from '../../../test/support/redis-sentinel.ts';
import { openRedis } from './client.ts';
import { redisTargetOf } from './target.ts';

let set: SentinelSet;
beforeAll(async () => {
  set = await startSentinelSet();
}, 120_000);
afterAll(async () => {
  await set?.stop();
}, 60_000);

/** The connector of an ioredis client (what the failover detector drops). */
const connectorOf = (client: object) => (client as { connector: { disconnect(): void } }).connector;

describe('a Sentinel client ended by its connector during a reconnection', () => {
  it('is connected again and answers on the new primary; one its owner closed stays closed', async () => {
    const target = redisTargetOf({ REDIS_SENTINELS: set.sentinels, REDIS_MASTER_NAME: set.masterName });
    const redis = openRedis(target!, { log: quietLog, name: 'sentinel-end' });
    const ended: number[] = [];
    redis.on('end', () => ended.push(Date.now()));
    await redis.set('sentinel-end:k', '1');

    const old = await set.primaryPort();
    await set.node(old).kill();
    // the failover detector's move, over and over, while the client reconnects through the Sentinels
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      if (redis.status === 'connecting' || redis.status === 'reconnecting') connectorOf(redis).disconnect();
      await sleep(3);
    }
    await set.waitForFailover(old, 30_000);
    expect(ended.length, 'ioredis ended the client at least once (the race happened)').toBeGreaterThan(0);
    await expect.poll(async () => redis.get('sentinel-end:k').catch((err: Error) => err.message), { timeout: 15_000, interval: 200 }).toBe('1');

    redis.disconnect();
    await sleep(1_500);
    expect(redis.status).toBe('end');
  }, 90_000);
});

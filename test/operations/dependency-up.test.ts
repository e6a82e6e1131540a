/**
 * `exchange_dependency_up` / `gateway_dependency_up` follow the real connections
 * (docs/operations.md#metrics): a Redis and a NATS server are killed (SIGKILL) and started again
 * on the same port; the Redis client's and the NATS connection's own events move their links, and
 * the exchange's scrape shows 1, 0, then 1 again.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { RedisClient } from '../../adapters/store/redis/client.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '../../adapters/feed/nats-connection.ts';
import { openRedis } from '../../adapters/store/redis/client.ts';
import { DependencyLinks } from '../../runtime/dependency-links.ts';
import { createExchangeMetrics } from '../../runtime/exchange/metrics.ts';
import { managedNats, managedRedis, type Managed } from '../support/managed.ts';
import { parseSamples, sampleSum } from '../support/prometheus.ts';
import { quietLog } from '../support/quiet-log.ts';

let redisServer: Managed & { url: string };
let natsServer: Managed & { url: string };
let redis: RedisClient | undefined;
let nc: NatsConnection | undefined;
const links = new DependencyLinks();
const metrics = createExchangeMetrics(Date.now, links);

beforeAll(async () => {
  [redisServer, natsServer] = await Promise.all([managedRedis(), managedNats()]);
});

afterAll(async () => {
  redis?.disconnect();
  await nc?.close().catch(() => undefined);
  await Promise.all([redisServer?.stop(), natsServer?.stop()]);
});

/** `exchange_dependency_up{dependency}` as the exchange's scrape shows it now (undefined: no sample). */
async function scraped(dependency: string): Promise<number | undefined> {
  const samples = parseSamples(await metrics.registry.metrics());
  const own = samples.filter((s) => s.name === 'exchange_dependency_up' && s.labels.dependency === dependency);
  return own.length === 0 ? undefined : sampleSum(own, 'exchange_dependency_up');
}

describe('dependency links', () => {
  it('no connection to a dependency: no sample for it', async () => {
    expect(await scraped('chain')).toBeUndefined();
  });

  it('Redis: up once ready, down when the server is killed, up again when it is back', async () => {
    redis = openRedis(redisServer.url, { log: quietLog, name: 'dependency-up-test', watch: links.link('redis') });
    expect(await scraped('redis')).toBe(0); // linked, not connected yet
    await redis.ping();
    expect(await scraped('redis')).toBe(1);
    await redisServer.kill();
    await expect.poll(() => scraped('redis'), { timeout: 10_000 }).toBe(0);
    await redisServer.start();
    await expect.poll(() => scraped('redis'), { timeout: 15_000 }).toBe(1);
  });

  it('NATS: up once connected, down on a disconnect, up again on the reconnect', async () => {
    nc = await connectNats(natsServer.url, 'dependency-up-test', quietLog, links.link('nats'));
    expect(await scraped('nats')).toBe(1);
    await natsServer.kill();
    await expect.poll(() => scraped('nats'), { timeout: 10_000 }).toBe(0);
    await natsServer.start();
    await expect.poll(() => scraped('nats'), { timeout: 15_000 }).toBe(1);
    await nc.close();
    expect(await scraped('nats')).toBe(0);
  });

  it('a dependency is up only while every link to it is', () => {
    const two = new DependencyLinks();
    const a = two.link('redis');
    const b = two.link('redis');
    a(true);
    expect(two.states()).toEqual([['redis', false]]);
    b(true);
    expect(two.states()).toEqual([['redis', true]]);
    two.probe('chain', () => false);
    expect(two.states()).toEqual([
      ['redis', true],
      ['chain', false],
    ]);
  });
});

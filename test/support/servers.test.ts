import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { connect } from '@nats-io/transport-node';
import { startNatsServer, startRedisServer, type RunningServer } from './servers.ts';

describe('private test servers', () => {
  const running: RunningServer[] = [];
  afterAll(async () => Promise.all(running.map((s) => s.stop())));

  it('starts a redis-server that answers', async () => {
    const srv = await startRedisServer();
    running.push(srv);
    const redis = new Redis(srv.url);
    await redis.set('k', 'v');
    expect(await redis.get('k')).toBe('v');
    redis.disconnect();
  });

  it('starts a nats-server that delivers', async () => {
    const srv = await startNatsServer();
    running.push(srv);
    const nc = await connect({ servers: srv.url });
    const sub = nc.subscribe('x', { max: 1 });
    nc.publish('x', 'hello');
    for await (const m of sub) expect(m.string()).toBe('hello');
    await nc.close();
  });
});

/** An exchange process on its own Redis with synthetic books, for the fault suites. */
import { freePort, startRedisServer, startService } from '../../support/servers.ts';

export interface TestExchange {
  base: string;
  stop(): Promise<void>;
}

/** Starts Redis and an exchange on free ports (synthetic books, no NATS). */
export async function startTestExchange(): Promise<TestExchange> {
  const redis = await startRedisServer();
  const [port, mgmt] = [await freePort(), await freePort()];
  const exchange = await startService(
    'exchange',
    { EXCHANGE_PORT: String(port), EXCHANGE_MGMT_PORT: String(mgmt), REDIS_URL: redis.url, EXCHANGE_FEED: 'synthetic', NATS_URL: '', LOG_LEVEL: 'warn' },
    mgmt,
  ).catch(async (err: unknown) => {
    await redis.stop();
    throw err;
  });
  return {
    base: `http://127.0.0.1:${port}`,
    async stop() {
      await exchange.stop();
      await redis.stop();
    },
  };
}

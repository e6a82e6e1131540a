/** The operator CLI's gateway commands on the shared test Redis, under a key prefix of this suite (`gateway.suite.ts`). */
import { sharedTestRedis } from '../../support/redis-prefix.ts';
import { describeGatewayCommands } from './gateway.suite.ts';

const shared = sharedTestRedis();

describeGatewayCommands('Redis', async () => ({ redis: shared.redis(), env: { REDIS_URL: shared.url() }, prefix: `${shared.prefix()}gw:` }));

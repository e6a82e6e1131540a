/** `npm run gateway`: the betting gateway as its own process, configured by env (design: "Run contract"). */
import { ConfigError } from '../runtime/env.ts';
import { readGatewayConfig } from '../runtime/gateway/config.ts';
import { startGateway } from '../runtime/gateway/gateway.ts';
import { log } from '../runtime/log.ts';
import { assertNativeUws } from '../server/http.ts';

try {
  assertNativeUws();
  const config = readGatewayConfig();
  const gateway = await startGateway(config);
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'gateway stopping');
      const force = setTimeout(() => {
        log.error('graceful stop took more than 10 s; exiting');
        process.exit(1);
      }, 10_000);
      force.unref();
      gateway.stop().then(
        () => {
          log.info('gateway stopped');
          process.exit(0);
        },
        (err: unknown) => {
          log.error({ err }, 'gateway stop failed');
          process.exit(1);
        },
      );
    });
  }
} catch (err) {
  if (err instanceof ConfigError) log.fatal({ variable: err.variable }, `bad configuration: ${err.message}`);
  else log.fatal({ err }, 'gateway failed to start');
  process.exit(1);
}

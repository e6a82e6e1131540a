/** `npm run gateway`: the betting gateway as its own process, configured by env (docs/operations.md#processes). */
import { gatewayEnv, readGatewayConfig } from './gateway-env.ts';
import { startGateway } from './gateway-app.ts';
import { runService } from './process.ts';

await runService(
  {
    name: 'gateway',
    command: 'npm run gateway',
    purpose: 'The betting gateway: HTTP and WebSocket API of the 15-second SOL up/down game in front of the on-chain contract.',
    env: gatewayEnv,
  },
  () => startGateway(readGatewayConfig()),
);

/** Profile A, black box, with the gateway's stores on one Redis server (`profile-a.suite.ts`). */
import { startGatewayStack } from '../support/gateway-stack.ts';
import { describeProfileA } from './profile-a.suite.ts';

describeProfileA(() => startGatewayStack());

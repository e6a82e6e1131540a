/** The exchange's native API, black box, with the ledger on one Redis server (`native-api.suite.ts`). */
import { describeNativeApi } from './native-api.suite.ts';

describeNativeApi();

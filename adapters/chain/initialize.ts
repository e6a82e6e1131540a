/**
 * Contract initialisation shared by the local chain's fresh-dir setup and the gateway's
 * boot (docs/operations.md#processes: GW_INIT, GW_MIN_AMOUNT, ...): initialise once, keep an
 * existing config as it is.
 */
import type { ChainPort, InitParams } from './port.ts';

/** Initialises the contract unless it already is; says which happened. */
export async function initializeContract(chain: ChainPort, params: InitParams): Promise<'initialized' | 'already-initialized'> {
  if (await chain.readConfig()) return 'already-initialized';
  await chain.initialize(params);
  return 'initialized';
}

/** The built contract, read from where the program module says it lives. */
import { existsSync, readFileSync } from 'node:fs';
import { PROGRAM_SO_PATH } from '../../../program/index.ts';

/** The program's deploy keypair. */
export { programKeypair } from '../../../program/index.ts';

/** The compiled SBPF program, or null when it has not been built. */
export function programElf(): Uint8Array | null {
  return existsSync(PROGRAM_SO_PATH) ? new Uint8Array(readFileSync(PROGRAM_SO_PATH)) : null;
}

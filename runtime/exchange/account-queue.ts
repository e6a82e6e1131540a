/**
 * Runs one ledger change per account at a time within this process. Versioned commits
 * already keep racing writers correct (also across processes); queueing them here spares
 * the retries that would otherwise grow with the square of the concurrent writers.
 */
import { SerialQueue } from '../../kernel/serial-queue.ts';

/** one queue per store the changes are written to */
const queues = new WeakMap<object, SerialQueue>();

/** Runs `work` after every earlier work for the same (`owner`, `accountId`) has settled. */
export function serialPerAccount<T>(owner: object, accountId: string, work: () => Promise<T>): Promise<T> {
  let queue = queues.get(owner);
  if (!queue) queues.set(owner, (queue = new SerialQueue()));
  return queue.run(accountId, work);
}

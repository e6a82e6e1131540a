/**
 * Runs one ledger change per account at a time within this process. Versioned commits
 * already keep racing writers correct (also across processes); queueing them here spares
 * the retries that would otherwise grow with the square of the concurrent writers.
 */
const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

/** Runs `work` after every earlier work for the same (`owner`, `accountId`) has settled. */
export function serialPerAccount<T>(owner: object, accountId: string, work: () => Promise<T>): Promise<T> {
  let byAccount = queues.get(owner);
  if (!byAccount) queues.set(owner, (byAccount = new Map()));
  const previous = byAccount.get(accountId) ?? Promise.resolve();
  const run = previous.then(work, work);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  byAccount.set(accountId, settled);
  // `settled` never rejects
  settled.then(
    () => {
      if (byAccount.get(accountId) === settled) byAccount.delete(accountId);
    },
    () => undefined,
  );
  return run;
}

/**
 * Runs one ledger change per account at a time within this process. Versioned commits
 * already keep racing writers correct (also across processes); queueing them here spares
 * the retries that would otherwise grow with the square of the concurrent writers.
 */
const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

/** `work()`, a synchronous throw as a rejection (as `then` would report it). */
function startNow<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Drops the account's entry when `settled` is still its last work. */
function forget(byAccount: Map<string, Promise<unknown>>, accountId: string, settled: Promise<void>): void {
  if (byAccount.get(accountId) === settled) byAccount.delete(accountId);
}

/** Runs `work` after every earlier work for the same (`owner`, `accountId`) has settled. */
export function serialPerAccount<T>(owner: object, accountId: string, work: () => Promise<T>): Promise<T> {
  let byAccount = queues.get(owner);
  if (!byAccount) queues.set(owner, (byAccount = new Map()));
  const previous = byAccount.get(accountId);
  // nothing queued for the account: the work starts now (most orders of a busy exchange)
  const run = previous ? previous.then(work, work) : startNow(work);
  // `settled` never rejects; the last work of an account leaves no entry behind
  const settled: Promise<void> = run.then(
    () => forget(byAccount, accountId, settled),
    () => forget(byAccount, accountId, settled),
  );
  byAccount.set(accountId, settled);
  return run;
}

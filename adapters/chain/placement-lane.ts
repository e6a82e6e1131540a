/**
 * place_bet must carry bet_id == config.next_bet_id (IDL), so placements from one gateway
 * go through a single lane: the id is handed out in order and reused knowledge of the next
 * id saves a read per bet. Another writer (a second gateway) makes the program answer
 * BetIdMismatch (6018); the caller then forgets the cached id and retries.
 */
export class PlacementLane {
  private tail: Promise<unknown> = Promise.resolve();
  private next: bigint | null = null;

  /** Runs `fn` alone on the lane with the next bet id (read with `readNextId` when unknown). */
  run<T>(readNextId: () => Promise<bigint>, fn: (betId: bigint) => Promise<{ result: T; used: number }>): Promise<T> {
    const job = this.tail.then(async () => {
      const id = this.next ?? (await readNextId());
      try {
        const { result, used } = await fn(id);
        this.next = id + BigInt(used);
        return result;
      } catch (err) {
        this.next = null;
        throw err;
      }
    });
    this.tail = job.catch(() => undefined);
    return job;
  }

  /** Forgets the cached id (after a mismatch, or when a placement's fate is unknown). */
  forget(): void {
    this.next = null;
  }
}

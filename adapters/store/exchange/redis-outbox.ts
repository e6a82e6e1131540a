/**
 * The Redis ledger read as the outbox of the exchange's events (docs/operations.md#exchange-events-outbox):
 * an account's journal stream and order list are what its commits wrote; `<p>:account:<id>:relayed`
 * is how far the relay got. Each read and each move of the cursor is one script on one account (one slot).
 */
import type { Cluster, Redis } from 'ioredis';
import * as v from 'valibot';
import { parseJournalEntry } from '../../../machines/exchange/journal.ts';
import type { LedgerOutbox, OrderRecord } from './port.ts';
import type { AccountKeys } from './redis-keys.ts';
import { ADVANCE_RELAYED, READ_OUTBOX } from './redis-scripts.ts';

const Reply = v.tuple([
  v.string(),
  v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number)),
  v.array(v.tuple([v.string(), v.array(v.string())])),
  v.array(v.string()),
]);

/** The outbox of the store whose account keys `k` names. */
export function redisOutbox(redis: Redis | Cluster, k: (id: string) => AccountKeys): LedgerOutbox {
  return {
    async read(accountId, limit) {
      const keys = k(accountId);
      const raw = await READ_OUTBOX.run(redis, [keys.relayed, keys.journal, keys.orders, keys.account], [limit]);
      if (raw === null) return null;
      const [journal, orders, entries, records] = v.parse(Reply, raw);
      return {
        from: { journal, orders },
        journal: entries.map(([id, flat]) => {
          const fields: Record<string, string> = {};
          for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
          return { id, entry: parseJournalEntry(fields) };
        }),
        orders: records.map((s) => JSON.parse(s) as OrderRecord),
      };
    },
    async advance(accountId, to) {
      const keys = k(accountId);
      await ADVANCE_RELAYED.run(redis, [keys.relayed, keys.account], [to.journal, String(to.orders)]);
    },
  };
}

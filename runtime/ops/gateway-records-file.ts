/**
 * Gateway records of the embedded default: the journal `DATA_DIR/gateway/journal.log`, read
 * (never written) on each call, so a running gateway's file is left alone; retry requests are
 * files in `DATA_DIR/gateway/retry-requests/`, which the gateway picks up within a second.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournalRecords } from '../../adapters/store/file/gateway-journal.ts';
import { readFileIntents } from '../../adapters/store/intents/file.ts';
import { retryRequestDir } from '../gateway/settlement/retry-requests.ts';
import { OpsError } from './errors.ts';
import type { GatewayRecords } from './gateway-records.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** Records of the gateway whose DATA_DIR is `dataDir`; fails when it has no journal. */
export function fileGatewayRecords(dataDir: string, pickupWaitMs = 3_000): GatewayRecords {
  const path = join(dataDir, 'gateway', 'journal.log');
  if (!existsSync(path))
    throw new OpsError(`no gateway journal at ${path}: set REDIS_URL for a gateway on Redis, or DATA_DIR (--data-dir) to the gateway's data dir`);
  const read = () => readJournalRecords(path);
  return {
    where: path,
    intents: () => readFileIntents(join(dataDir, 'gateway', 'intents.log')),
    async liveBets() {
      return [...read().snapshots.entries()]
        .filter(([, r]) => !r.final)
        .map(([id, r]) => ({ id, snapshot: r.snapshot, live: true }))
        .sort((a, b) => Number(a.id) - Number(b.id));
    },
    async bet(id) {
      const r = read().snapshots.get(id);
      return r ? { id, snapshot: r.snapshot, live: !r.final } : null;
    },
    async record(betId) {
      // the bet history is written in the journal with each commit
      return read().betHistory.get(betId);
    },
    async eventsSince(since, limit) {
      return read()
        .events.filter((e) => e.seq > since)
        .slice(0, limit);
    },
    async requestRetry(id) {
      const dir = retryRequestDir(dataDir);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, id);
      writeFileSync(file, `${new Date().toISOString()}\n`);
      // the gateway removes the file when it takes the request
      for (const deadline = Date.now() + pickupWaitMs; Date.now() < deadline; await sleep(100)) {
        if (!existsSync(file)) return { via: 'file', receivers: 1 };
      }
      if (!existsSync(file)) return { via: 'file', receivers: 1 };
      rmSync(file, { force: true }); // no gateway runs on this data dir: nothing is left for a later one
      return { via: 'file', receivers: 0 };
    },
    close: async () => undefined,
  };
}

/**
 * Market orders under wrk for the exchange benchmark (docs/operations.md#benchmarks): a wrk Lua
 * script that POSTs one order body round-robin over the accounts' order paths, one measured run
 * with what Redis did meanwhile (its CPU from /proc, its commands from `INFO commandstats`, the
 * orders stored), and the change and answer of a real order read back from what its commit
 * stored (the floor service's precomputed change).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { CommitText } from '../../adapters/store/exchange/redis.ts';
import { cpuMs } from './measure.ts';
import { measureWithWrk, type WrkMeasurement, type WrkOptions } from './wrk.ts';
import { tempDir } from '../../test/support/temp-dir.ts';

/** The order every request places. */
export const ORDER = JSON.stringify({ symbol: 'SOLUSDT', side: 'BUY', qty: '0.001' });

/** Writes a wrk script POSTing `body` (JSON) to `paths` in turn; returns its file. */
export function roundRobinScript(paths: string[], body: string): string {
  const file = join(tempDir('bench-wrk-'), 'orders.lua');
  const lua = (s: string) => JSON.stringify(s); // a JSON string of ASCII is a Lua string literal
  writeFileSync(
    file,
    [
      `local paths = {${paths.map(lua).join(', ')}}`,
      'local n = 0',
      `wrk.method = "POST"`,
      `wrk.body = ${lua(body)}`,
      `wrk.headers["Content-Type"] = "application/json"`,
      'request = function()',
      '  n = n + 1',
      '  return wrk.format(nil, paths[(n % #paths) + 1])',
      'end',
      '',
    ].join('\n'),
  );
  return file;
}

/** Calls per command from `INFO commandstats`. */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out.set(m[1] as string, Number(m[2]));
  return out;
}

/** One measured run of orders, with what Redis did meanwhile. */
export interface OrdersRun extends WrkMeasurement {
  /** 2xx answers (orders placed) */
  placed: number;
  /** orders stored under the prefix during the run (an order in flight when wrk stopped may land after) */
  stored: number;
  /** Redis CPU during the measured run, ms */
  redisCpuMs: number;
  /** Redis commands per placed order, most frequent first */
  commands: [string, number][];
}

/** Loads `base` (process `pid`) with orders over `accountIds`' paths; `prefix` is where the server stores their orders. */
export async function measureOrders(
  wrk: string,
  base: string,
  pid: number,
  accountIds: string[],
  admin: Redis,
  prefix: string,
  options: WrkOptions,
): Promise<OrdersRun> {
  const redisPid = Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
  const stored = () => Promise.all(accountIds.map((id) => admin.llen(`${prefix}:account:${id}:orders`))).then((ns) => ns.reduce((a, b) => a + b, 0));
  const script = roundRobinScript(
    accountIds.map((id) => `/api/v1/accounts/${id}/orders`),
    ORDER,
  );
  let before = { stored: 0, calls: new Map<string, number>(), redisCpu: 0 };
  const m = await measureWithWrk(wrk, `${base}/`, pid, {
    ...options,
    script,
    pinBesideWrk: [redisPid],
    beforeMeasured: async () => {
      before = { stored: await stored(), calls: await commandCalls(admin), redisCpu: cpuMs(redisPid) };
    },
  });
  const redisCpuMs = cpuMs(redisPid) - before.redisCpu;
  const after = await commandCalls(admin);
  const placed = m.requests - m.non2xx3xx;
  const commands = [...after]
    .map(([k, v]) => [k, (v - (before.calls.get(k) ?? 0)) / Math.max(1, placed)] as [string, number])
    .filter(([k, v]) => v > 0.005 && k !== 'info' && k !== 'llen')
    .sort((a, b) => b[1] - a[1]);
  return { ...m, placed, stored: (await stored()) - before.stored, redisCpuMs, commands };
}

/** The COMMIT arguments of the last order of `accountId`, read back from what its commit stored, and the exchange's answer to it. */
export async function realOrder(redis: Redis, accountId: string): Promise<{ change: CommitText; answer: string }> {
  const b = `exchange:account:${accountId}`;
  const [order] = await redis.lrange(`${b}:orders`, '-1', '-1');
  if (!order) throw new Error('no order was stored');
  const record = JSON.parse(order) as Record<string, unknown> & { orderId: string; idempotencyKey: string | null };
  const account = await redis.hgetall(b);
  const positions = await redis.hgetall(`${b}:positions`);
  const [equity, score] = await redis.zrange(`${b}:equity`, '-1', '-1', 'WITHSCORES');
  const entries = await redis.xrevrange(`${b}:journal`, '+', '-', 'COUNT', 1);
  const key = record.idempotencyKey;
  const idem = key === null ? null : await redis.hget(`${b}:idempotency`, `key:${key}`);
  const state = await redis.hget(`${b}:order-states`, record.orderId);
  if (!equity || !score || !entries[0] || !state || (key !== null && !idem)) throw new Error('the stored order is incomplete');
  // the answer is the record without what only the history shows (docs/exchange-api.md#place)
  const fields = ['orderId', 'status', 'symbol', 'side', 'qty', 'requestedQty', 'price', 'gross', 'fee', 'cash', 'positionQty'];
  return {
    change: {
      cash: account.cash as string,
      cashLocked: account.cashLocked ?? '0',
      netDeposits: account.netDeposits as string,
      feesPaid: account.feesPaid as string,
      positions,
      journal: [entries[0][1]],
      order,
      equity: { score, member: equity },
      ...(idem ? { idem: { key: `key:${key}`, value: idem } } : {}),
      state: { id: record.orderId, json: state },
    },
    answer: JSON.stringify(Object.fromEntries(fields.map((f) => [f, record[f]]))),
  };
}

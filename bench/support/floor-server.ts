/**
 * The floor of the market-order benchmark (docs/operations.md#benchmarks): what any service that
 * takes an order over HTTP and stores it with the ledger's COMMIT script must spend, without the
 * domain (no book walk, no ledger arithmetic, no order machine). A bare uWS app in its own
 * process with one route, `POST /api/v1/accounts/:id/orders`: it reads the body, `JSON.parse`s it,
 * validates it with the exchange's own order schema (`OrderBody`), runs COMMIT (EVALSHA through
 * ioredis, the client configured as the exchange's store configures it) with a change computed
 * before the run (the keys and arguments of a real order of the exchange), and answers 201 with
 * that order's answer body.
 *
 * The change commits every time: COMMIT refuses (`conflict`) unless its expected version equals the
 * account's stored `version`, and adds one to it when it commits. This process owns its accounts
 * (their keys under its own prefix, initialised at start to version 1) and keeps each one's next
 * version in memory, taken and incremented when the request arrives; one connection carries every
 * command in the order they were issued and Redis runs them in that order, so commits to the same
 * account in flight together each find the version the previous one left. Each commit stores its
 * order state under a fresh order id (as each order has its own); the other arguments are the
 * same every time. A commit that does not pass (none should) answers 500 and re-reads the version.
 *
 * Run: `node --import tsx bench/support/floor-server.ts <port> <config.json>`, the config a
 * `FloorConfig`.
 */
import { readFileSync } from 'node:fs';
import uWS from 'uWebSockets.js';
import * as v from 'valibot';
import { commitArgs } from '../../adapters/store/exchange/redis.ts';
import { COMMIT } from '../../adapters/store/exchange/redis-scripts.ts';
import { commitKeys, exchangeKeys } from '../../adapters/store/exchange/redis-keys.ts';
import { openRedis } from '../../adapters/store/redis/client.ts';
import { log } from '../../kernel/log.ts';
import { OrderBody } from '../../server/exchange/wire.ts';
import type { FloorConfig } from './stack.ts';

const port = Number(process.argv[2]);
const config = JSON.parse(readFileSync(process.argv[3] as string, 'utf8')) as FloorConfig;
const redis = openRedis(config.redisUrl, { log, name: 'floor' });
const template = commitArgs(1, config.change);
const accounts = new Map(config.accountIds.map((id) => [id, { keys: commitKeys(exchangeKeys(config.prefix, false).account(id)), next: 1 }] as const));
await Promise.all([...accounts.values()].map((a) => redis.hset(a.keys[0] as string, 'version', '1')));

let n = 0;

/** Commits the precomputed change to `account`; true when it passed. */
async function commit(account: { keys: string[]; next: number }): Promise<boolean> {
  const args = template.slice();
  args[0] = String(account.next++);
  args[7] = `floor-${++n}`; // the order state's id: a fresh order each time
  const out = await COMMIT.run(redis, account.keys, args);
  if (out === 'committed') return true;
  account.next = Number(await redis.hget(account.keys[0] as string, 'version'));
  return false;
}

/** Sends `status` and `body` unless the client has gone. */
function send(res: uWS.HttpResponse, state: { aborted: boolean }, status: string, body: string): void {
  if (state.aborted) return;
  res.cork(() => {
    res.writeStatus(status).writeHeader('Content-Type', 'application/json').end(body);
  });
}

uWS
  .App()
  .post('/api/v1/accounts/:id/orders', (res, req) => {
    const id = req.getParameter(0) ?? '';
    const state = { aborted: false };
    res.onAborted(() => (state.aborted = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      const account = accounts.get(id);
      if (!account) return send(res, state, '404 Not Found', '{"error":"ACCOUNT_NOT_FOUND"}');
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, state, '400 Bad Request', '{"error":"VALIDATION_ERROR"}');
      }
      if (!v.safeParse(OrderBody, body, { abortPipeEarly: true }).success) return send(res, state, '400 Bad Request', '{"error":"VALIDATION_ERROR"}');
      commit(account).then(
        (ok) => send(res, state, ok ? '201 Created' : '500 Internal Server Error', ok ? config.answer : '{"error":"CONFLICT"}'),
        (err: unknown) => send(res, state, '503 Service Unavailable', JSON.stringify({ error: String(err) })),
      );
    });
  })
  .listen('127.0.0.1', port, (token) => {
    if (!token) {
      console.error(`floor server: port ${port} is in use`);
      process.exit(1);
    }
  });

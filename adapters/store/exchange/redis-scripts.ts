/**
 * Lua scripts of the Redis exchange store. Each runs atomically in Redis, so a commit is
 * all-or-nothing and a version check inside the script serialises racing writers, also
 * across processes. The scripts do no arithmetic: decimals are computed in TypeScript.
 * Each takes the keys of one account or one global key, never both, so it runs on Redis Cluster
 * (one hash slot: docs/operations.md#where-state-lives-in-redis).
 */
import { redisScript } from '../redis/script.ts';

/**
 * KEYS: account, journal, equity, relay cursor (one account: one slot). ARGV: hash fields, journal
 * fields, point score, point. Writes the account with its opening entry and a relay cursor from the
 * start of its journal; 'exists' when the id is taken. The name and the account list are global keys,
 * written by their own commands after this one (`redis.ts`).
 */
export const CREATE_ACCOUNT = redisScript(
  `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
redis.call('HSET', KEYS[1], unpack(cjson.decode(ARGV[1])))
redis.call('XADD', KEYS[2], '*', unpack(cjson.decode(ARGV[2])))
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
redis.call('HSET', KEYS[4], 'journal', '0-0', 'orders', '0')
return 'created'
`,
  { deadline: true },
);

/**
 * KEYS: names. ARGV: name, account id, the id of a deleted account still holding the name ('' = none).
 * 'claimed' when the name is (now) the account's, else the id that holds it.
 */
export const CLAIM_NAME = redisScript(
  `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then return 'claimed' end
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if owner == ARGV[2] then return 'claimed' end
if ARGV[3] ~= '' and owner == ARGV[3] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 'claimed'
end
return owner
`,
  { deadline: true },
);

/** KEYS: names. ARGV: name, account id. Frees the name if the account holds it. */
export const RELEASE_NAME = redisScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 1
`);

/**
 * KEYS: account, positions, idempotency, engine order ids, trades. ARGV: idempotency key
 * (optional). One consistent read of an order's inputs in one command: {account fields and values,
 * position fields and values, the idempotency record or false, how many engine orders, how many
 * fills} (the last integer ids given: docs/orders.md#ids); an empty account hash is an account
 * that does not exist.
 */
export const LOAD = redisScript(`
local idem = false
if ARGV[1] then idem = redis.call('HGET', KEYS[3], ARGV[1]) end
return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]), idem, redis.call('LLEN', KEYS[4]), redis.call('LLEN', KEYS[5])}
`);

/**
 * KEYS: idempotency. ARGV: idempotency key, its record as read. Writes the record again (same
 * value) so that a repeat has a write of its own to WAIT for: a replica that acknowledges it holds
 * the first commit too (docs/decisions.md#a-commit-waits-for-a-replica). 0 when the record is no
 * longer the one read (nothing written).
 */
export const RESTATE_RECORD = redisScript(
  `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`,
  { deadline: true },
);

/**
 * KEYS: account, positions, orders, equity, journal, idempotency, order states, engine orders,
 * engine order ids, client ids, the account's open orders, trades: all of one account (one slot).
 * ARGV: expected version, balances JSON {cash, cashLocked, netDeposits, feesPaid,
 * positions{symbol: json}, journal[[k,v,...]]}, order JSON, equity score, equity member,
 * idempotency key, idempotency record JSON, order id, order state JSON ('' = none), engine order
 * writes JSON [{id, cid, open, state}] ('' = none), trades JSON [json] ('' = none).
 * The JSON documents the commit stores whole travel as arguments (or strings inside one) of their
 * own, so neither side encodes or decodes them twice. Every check comes before the first write.
 */
export const COMMIT = redisScript(
  `
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return 'missing' end
if v ~= ARGV[1] then return 'conflict' end
if ARGV[6] ~= '' and redis.call('HEXISTS', KEYS[6], ARGV[6]) == 1 then return 'conflict' end
local writes = {}
if ARGV[10] ~= '' then writes = cjson.decode(ARGV[10]) end
for _, w in ipairs(writes) do
  local owner = redis.call('HGET', KEYS[10], w.cid)
  if owner and owner ~= w.id then return 'conflict' end
end
local c = cjson.decode(ARGV[2])
redis.call('HSET', KEYS[1], 'cash', c.cash, 'cashLocked', c.cashLocked, 'netDeposits', c.netDeposits, 'feesPaid', c.feesPaid)
for sym, json in pairs(c.positions) do redis.call('HSET', KEYS[2], sym, json) end
for _, fields in ipairs(c.journal) do redis.call('XADD', KEYS[5], '*', unpack(fields)) end
if ARGV[3] ~= '' then redis.call('RPUSH', KEYS[3], ARGV[3]) end
if ARGV[5] ~= '' then redis.call('ZADD', KEYS[4], ARGV[4], ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[6], ARGV[6], ARGV[7]) end
if ARGV[8] ~= '' then redis.call('HSET', KEYS[7], ARGV[8], ARGV[9]) end
for _, w in ipairs(writes) do
  if redis.call('HSET', KEYS[8], w.id, w.state) == 1 then redis.call('RPUSH', KEYS[9], w.id) end
  redis.call('HSET', KEYS[10], w.cid, w.id)
  if w.open then redis.call('SADD', KEYS[11], w.id) else redis.call('SREM', KEYS[11], w.id) end
end
if ARGV[11] ~= '' then
  for _, t in ipairs(cjson.decode(ARGV[11])) do redis.call('RPUSH', KEYS[12], t) end
end
redis.call('HINCRBY', KEYS[1], 'version', 1)
return 'committed'
`,
  { deadline: true },
);

/** KEYS: account, then every other key the account owns. Deletes them all; the account's name, or false when it did not exist. */
export const DELETE_ACCOUNT = redisScript(
  `
local name = redis.call('HGET', KEYS[1], 'name')
if not name then return false end
for i = 1, #KEYS do redis.call('DEL', KEYS[i]) end
return name
`,
  { deadline: true },
);

/** KEYS: account. ARGV: fee rate, maker fee rate. Sets both and bumps the version; 0 when the account does not exist. */
export const SET_FEES = redisScript(
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'feeRate', ARGV[1], 'makerFeeRate', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'version', 1)
return 1
`,
  { deadline: true },
);

/**
 * KEYS: relay cursor, journal, orders, account. ARGV: at most how many journal entries. What the
 * account committed after its relay cursor (docs/operations.md#exchange-events-outbox), in one
 * consistent read: {journal id, orders relayed, entries after the id [[id, fields]], the order
 * records that may follow}; false when the account does not exist. An account from before the
 * outbox has no cursor: it gets one at the end of its journal (its history was published best-effort).
 */
export const READ_OUTBOX = redisScript(`
local j = redis.call('HGET', KEYS[1], 'journal')
local o = redis.call('HGET', KEYS[1], 'orders')
if not j then
  if redis.call('EXISTS', KEYS[4]) == 0 then return false end
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
  j = '0-0'
  if last[1] then j = last[1][1] end
  o = redis.call('LLEN', KEYS[3])
  redis.call('HSET', KEYS[1], 'journal', j, 'orders', o)
end
local entries = redis.call('XRANGE', KEYS[2], '(' .. j, '+', 'COUNT', ARGV[1])
local orders = {}
if #entries > 0 then orders = redis.call('LRANGE', KEYS[3], tonumber(o), tonumber(o) + #entries - 1) end
return {j, tostring(o), entries, orders}
`);

/**
 * KEYS: relay cursor, account. ARGV: journal id, orders relayed. Moves the cursor forward only (two
 * relays of one account, in two processes, never move it back); 0 when it did not move.
 */
export const ADVANCE_RELAYED = redisScript(`
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local j = redis.call('HGET', KEYS[1], 'journal')
if j then
  local ms, seq = string.match(j, '^(%d+)-(%d+)$')
  local nms, nseq = string.match(ARGV[1], '^(%d+)-(%d+)$')
  ms, seq, nms, nseq = tonumber(ms), tonumber(seq), tonumber(nms), tonumber(nseq)
  if nms < ms or (nms == ms and nseq <= seq) then return 0 end
end
redis.call('HSET', KEYS[1], 'journal', ARGV[1], 'orders', ARGV[2])
return 1
`);

/**
 * Lua scripts of the Redis exchange store. Each runs atomically in Redis, so a commit is
 * all-or-nothing and a version check inside the script serialises racing writers, also
 * across processes. The scripts do no arithmetic: decimals are computed in TypeScript.
 */
import { redisScript } from '../redis/script.ts';

/** KEYS: names, accounts, account, journal, equity. ARGV: name, id, createdMs, hash fields, journal fields, point score, point. */
export const CREATE_ACCOUNT = redisScript(
  `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 'name_taken' end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[3], unpack(cjson.decode(ARGV[4])))
redis.call('XADD', KEYS[4], '*', unpack(cjson.decode(ARGV[5])))
redis.call('ZADD', KEYS[5], ARGV[6], ARGV[7])
return 'created'
`,
  { deadline: true },
);

/**
 * KEYS: account, positions, idempotency. ARGV: idempotency key (optional). One consistent read of
 * an order's inputs in one command: {account fields and values, position fields and values,
 * the idempotency record or false}; an empty account hash is an account that does not exist.
 */
export const LOAD = redisScript(`
local idem = false
if ARGV[1] then idem = redis.call('HGET', KEYS[3], ARGV[1]) end
return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]), idem}
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
 * engine order ids, client ids, the account's open orders, every account's open orders, trades.
 * ARGV: expected version, balances JSON {cash, cashLocked, netDeposits, feesPaid,
 * positions{symbol: json}, journal[[k,v,...]]}, order JSON, equity score, equity member,
 * idempotency key, idempotency record JSON, order id, order state JSON ('' = none), engine order
 * writes JSON [{id, cid, open, state}] ('' = none), trades JSON [json] ('' = none), account id.
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
  if w.open then
    redis.call('SADD', KEYS[11], w.id)
    redis.call('SADD', KEYS[12], ARGV[12] .. ' ' .. w.id)
  else
    redis.call('SREM', KEYS[11], w.id)
    redis.call('SREM', KEYS[12], ARGV[12] .. ' ' .. w.id)
  end
end
if ARGV[11] ~= '' then
  for _, t in ipairs(cjson.decode(ARGV[11])) do redis.call('RPUSH', KEYS[13], t) end
end
redis.call('HINCRBY', KEYS[1], 'version', 1)
return 'committed'
`,
  { deadline: true },
);

/** KEYS: account, names, accounts, every account's open orders, the account's open orders, then every other key the account owns. ARGV: id. */
export const DELETE_ACCOUNT = redisScript(
  `
local name = redis.call('HGET', KEYS[1], 'name')
if not name then return 0 end
if redis.call('HGET', KEYS[2], name) == ARGV[1] then redis.call('HDEL', KEYS[2], name) end
redis.call('ZREM', KEYS[3], ARGV[1])
for _, id in ipairs(redis.call('SMEMBERS', KEYS[5])) do redis.call('SREM', KEYS[4], ARGV[1] .. ' ' .. id) end
redis.call('DEL', KEYS[1])
for i = 5, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
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

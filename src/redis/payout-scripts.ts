/**
 * The Lua scripts of {@link RedisPayoutStore}. KEYS are always, in this order, the records hash
 * (reference → the record's JSON, as the workflow wrote it), the meta hash (reference → the id
 * of the write that stored it, a space, its member in the state sets) and then state sets
 * (sorted sets, every score 0, members ordered by payout-order.ts); they share one hash tag (one
 * Cluster slot). A script never compares strings with Lua's `<` (which follows the server's
 * locale): only with `==`, or byte by byte.
 */
import { LuaScript } from './commands.js';

/**
 * KEYS[3] the set of the record's state. ARGV[1] reference, ARGV[2] JSON, ARGV[3] member,
 * ARGV[4] this call's write id. Returns {1} when stored, {1} again when the stored record was
 * stored by this very call (ioredis resent it after a lost reply), else {0, the stored JSON}.
 */
export const CREATE_PAYOUT = new LuaScript(`
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then
  local meta = redis.call('HGET', KEYS[2], ARGV[1]) or ''
  if string.sub(meta, 1, #ARGV[4] + 1) == ARGV[4] .. ' ' and stored == ARGV[2] then return {1} end
  return {0, stored}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4] .. ' ' .. ARGV[3])
redis.call('ZADD', KEYS[3], 0, ARGV[3])
return {1}
`);

/**
 * KEYS[3..] the set of every state. ARGV[1] reference, ARGV[2] JSON, ARGV[3] the version the
 * stored record must have, ARGV[4] member, ARGV[5] which state set takes it (1 for KEYS[3]),
 * ARGV[6] this call's write id, ARGV[7] the new version. The compare-and-set: returns 1 when
 * stored, or when this very call stored it already (a resend after a lost reply: the meta's
 * write id is this call's), 0 when the stored record is absent or of another version, -1 when the
 * stored record does not read as JSON with a numeric version (stored nothing; the caller names
 * the reference).
 */
export const REPLACE_PAYOUT = new LuaScript(`
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if not stored then return 0 end
local ok, record = pcall(cjson.decode, stored)
if not ok or type(record) ~= 'table' or type(record.version) ~= 'number' then return -1 end
local meta = redis.call('HGET', KEYS[2], ARGV[1]) or ''
if record.version == tonumber(ARGV[7]) and string.sub(meta, 1, #ARGV[6] + 1) == ARGV[6] .. ' ' then return 1 end
if record.version ~= tonumber(ARGV[3]) then return 0 end
local old = string.match(meta, '^%S* (.*)$')
if old then
  for i = 3, #KEYS do redis.call('ZREM', KEYS[i], old) end
end
redis.call('ZADD', KEYS[2 + tonumber(ARGV[5])], 0, ARGV[4])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[6] .. ' ' .. ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`);

/**
 * KEYS[3..] the sets of the states asked for. ARGV[1], ARGV[2] the BYLEX range, ARGV[3] limit.
 * Takes the first limit + 1 members of each set in the range, merges them byte by byte (the
 * list order), and returns {more, member, JSON, member, JSON, ...} for the first `limit` (JSON
 * false when an index entry has no record), `more` 1 when a further member exists.
 */
export const LIST_PAYOUTS = new LuaScript(`
local function before(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
local limit = tonumber(ARGV[3])
local heads, at = {}, {}
for i = 3, #KEYS do
  heads[#heads + 1] = redis.call('ZRANGE', KEYS[i], ARGV[1], ARGV[2], 'BYLEX', 'LIMIT', 0, limit + 1)
  at[#at + 1] = 1
end
local out, taken = { 0 }, 0
while true do
  local best
  for i = 1, #heads do
    local m = heads[i][at[i]]
    if m and (best == nil or before(m, heads[best][at[best]])) then best = i end
  end
  if best == nil then break end
  if taken == limit then out[1] = 1 break end
  local member = heads[best][at[best]]
  at[best] = at[best] + 1
  taken = taken + 1
  local sep = string.find(member, '!', 18, true)
  out[#out + 1] = member
  out[#out + 1] = sep and redis.call('HGET', KEYS[1], string.sub(member, sep + 1)) or false
end
return out
`);

/** Redis' clock, as {seconds, microseconds}, read on the node that holds KEYS[1]: one clock per fleet, on a Cluster too. */
export const PAYOUT_TIME = new LuaScript(`
return redis.call('TIME')
`);

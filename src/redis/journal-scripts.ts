/**
 * The Lua scripts of {@link RedisJournal}. KEYS are always, in this order, the scope's intents
 * hash (key → JSON), its open set (sorted set, key scored by `createdAt`) and its claims hash
 * (key → end of the claim in ms on Redis' clock); they share one hash tag (one Cluster slot).
 */
import { LuaScript } from './commands.js';

/**
 * ARGV[1] idempotency key, ARGV[2] the intent as JSON, ARGV[3] its `createdAt`. The first record
 * of a key stays (HSETNX, ZADD NX): recording it again must not move its `createdAt` later,
 * which would stretch the 24-hour window recovery counts from. Returns 1 if new, 0 if kept.
 */
export const RECORD_INTENT = new LuaScript(`
local added = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[1])
return added
`);

/** ARGV[1] idempotency key. Removes the intent, its place in the open set and its claim. */
export const SETTLE_INTENT = new LuaScript(`
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])
`);

/**
 * ARGV[1] the latest `createdAt` to take (ms), ARGV[2] lease ms, ARGV[3] limit. Walks the open
 * intents oldest first; each one not under an unexpired claim is claimed until now + lease (Redis
 * TIME: one clock for the fleet) and returned, up to the limit. An index entry without its
 * record (a settle interrupted half-way cannot happen in one script, but a hand edit can) is
 * dropped. Returns the claimed intents as a flat list of key, JSON pairs: the key stays readable
 * when its record is not.
 */
export const CLAIM_INTENTS = new LuaScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[3]) * 2
local out = {}
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])) do
  if #out >= limit then break end
  local claimedUntil = tonumber(redis.call('HGET', KEYS[3], key) or '0')
  if claimedUntil <= now then
    local record = redis.call('HGET', KEYS[1], key)
    if record then
      redis.call('HSET', KEYS[3], key, tostring(now + tonumber(ARGV[2])))
      out[#out + 1] = key
      out[#out + 1] = record
    else
      redis.call('ZREM', KEYS[2], key)
      redis.call('HDEL', KEYS[3], key)
    end
  end
end
return out
`);

/**
 * ARGV[1] the `createdAt` after which to look (ms), ARGV[2] how many to return. Claims nothing.
 * Returns the count of open intents recorded after that time, then the JSON of the oldest of them
 * (up to the limit).
 */
export const OPEN_AFTER = new LuaScript(`
local total = redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[1], '+inf')
local out = { total }
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf', 'LIMIT', 0, tonumber(ARGV[2]))) do
  local record = redis.call('HGET', KEYS[1], key)
  if record then out[#out + 1] = record end
end
return out
`);

/**
 * ARGV[1] the latest `createdAt` to look at (ms), ARGV[2] how many to return, ARGV[3...] keys to
 * leave out. Claims nothing. Returns how many open intents recorded by then are under an
 * unexpired claim (Redis TIME, the clock that set it), then key, ms left pairs of those whose
 * claim ends first (up to the limit).
 */
export const LEASED_INTENTS = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local except = {}
for i = 3, #ARGV do except[ARGV[i]] = true end
local found = {}
local claims = redis.call('HGETALL', KEYS[3])
for i = 1, #claims, 2 do
  local key = claims[i]
  local claimedUntil = tonumber(claims[i + 1]) or 0
  if claimedUntil > now and not except[key] then
    local createdAt = redis.call('ZSCORE', KEYS[2], key)
    if createdAt and tonumber(createdAt) <= tonumber(ARGV[1]) then found[#found + 1] = { key, claimedUntil - now } end
  end
end
table.sort(found, function(a, b) return a[2] < b[2] or (a[2] == b[2] and a[1] < b[1]) end)
local out = { #found }
for i = 1, math.min(#found, tonumber(ARGV[2])) do
  out[#out + 1] = found[i][1]
  out[#out + 1] = found[i][2]
end
return out
`);

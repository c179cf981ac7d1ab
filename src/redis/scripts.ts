/**
 * The Lua scripts of the fleet stores. Each runs atomically on the Redis node that owns its
 * keys, which is what makes a check-then-write (claim, compare-and-delete, count) safe when many
 * instances race.
 */
import { LuaScript } from './commands.js';

/**
 * KEYS[1] renewal lock, KEYS[2] renewal counter; ARGV[1] owner, ARGV[2] lease ms, ARGV[3] the
 * counter the caller saw when it started waiting ('' at first).
 *
 * Returns {1, n} when the caller now holds the lock; {2, n} when a renewal completed since the
 * caller started waiting (it reads the new token without the lock); {0, n} while another holds
 * it. n is the current counter.
 */
export const TRY_LOCK = new LuaScript(`
local n = redis.call('GET', KEYS[2]) or '0'
if ARGV[3] ~= '' and n ~= ARGV[3] then return {2, n} end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1, n} end
return {0, n}
`);

/**
 * KEYS[1] renewal lock, KEYS[2] renewal counter; ARGV[1] owner, ARGV[2] '1' if the renewal
 * succeeded. Deletes the lock only if this owner still holds it; counts a successful renewal so
 * that waiters stop waiting.
 */
export const UNLOCK = new LuaScript(`
if ARGV[2] == '1' then
  redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], 86400000)
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`);

/** KEYS[1] lock; ARGV[1] owner, ARGV[2] ms. Extends the lock only if this owner still holds it. */
export const EXTEND_LOCK = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`);

/**
 * KEYS[1] token; ARGV[1] token value. Compare-and-delete: removes the stored token only if it is
 * still the one the caller saw rejected, never a newer one another instance stored meanwhile.
 */
export const DELETE_TOKEN_IF = new LuaScript(`
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local ok, stored = pcall(cjson.decode, raw)
if ok and type(stored) == 'table' and stored.token == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`);

/**
 * KEYS[1] event; ARGV[1] claim marker, ARGV[2] lease ms. Atomic claim of a webhook event id:
 * 'done' means processed; any other value is an in-progress claim that expires with its lease.
 */
export const CLAIM_EVENT = new LuaScript(`
local v = redis.call('GET', KEYS[1])
if v == 'done' then return 'duplicate' end
if v then return 'in_progress' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'claimed'
`);

/**
 * KEYS[1] event; ARGV[1] claim marker. Drops an in-progress claim, only this instance's (a
 * claim that expired and was taken by another instance stays), never a 'done' record.
 */
export const RELEASE_EVENT = new LuaScript(`
local v = redis.call('GET', KEYS[1])
if v and v ~= 'done' and v == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`);

/**
 * KEYS[1] bucket window (sorted set, score = admission time in ms), KEYS[2] bucket pause,
 * KEYS[3] (optional) the pause of the call's sub-limit, honoured like the bucket's. ARGV[1] quota, ARGV[2] window ms, ARGV[3] unique member, ARGV[4] the caller's clock in ms or
 * '' for Redis' own.
 *
 * Returns 0 when one request is admitted (and counted), otherwise the ms to wait: the pause's
 * remaining time, or when the oldest admission leaves the window. Time is the Redis server's
 * (TIME), one clock for the whole fleet whatever the instances' clocks say, unless the caller
 * passes its own (a test clock the whole fleet shares): then a pause is the end time stored in
 * the pause key (see PAUSE), not its TTL.
 */
export const ACQUIRE = new LuaScript(`
if redis.replicate_commands then redis.replicate_commands() end
local now
-- On the caller's clock, Redis' TTL only cleans up: at least a day.
local keep = tonumber(ARGV[2])
if ARGV[4] ~= nil and ARGV[4] ~= '' then
  now = tonumber(ARGV[4])
  keep = math.max(keep, 86400000)
  for i = 2, #KEYS do
    local pausedUntil = tonumber(redis.call('GET', KEYS[i]) or '')
    if pausedUntil and pausedUntil > now then return pausedUntil - now end
  end
else
  for i = 2, #KEYS do
    local paused = redis.call('PTTL', KEYS[i])
    if paused > 0 then return paused end
  end
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], keep)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = tonumber(oldest[2]) + window - now
if wait < 1 then wait = 1 end
return wait
`);

/**
 * KEYS[1] bucket pause; ARGV[1] ms, ARGV[2] the caller's clock in ms or '' for Redis' own. Sets
 * or lengthens the pause, never shortens it. On Redis' clock the pause is the key's TTL; on the
 * caller's clock the key holds the pause's end time on that clock (kept a day, for cleanup).
 */
export const PAUSE = new LuaScript(`
if ARGV[2] ~= nil and ARGV[2] ~= '' then
  local untilMs = tonumber(ARGV[2]) + tonumber(ARGV[1])
  local current = tonumber(redis.call('GET', KEYS[1]) or '')
  if current and current >= untilMs then return 0 end
  redis.call('SET', KEYS[1], tostring(untilMs), 'PX', math.max(tonumber(ARGV[1]), 86400000))
  return 1
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
  return 1
end
return 0
`);

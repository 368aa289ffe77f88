/**
 * The cluster's Lua scripts: each runs atomically in Redis, on Redis's clock (TIME), so
 * replicas whose clocks disagree still agree on who is alive, who leads and how many
 * tokens are left. Loaded with ioredis's defineCommand (EVALSHA, EVAL on NOSCRIPT).
 */

/** Redis's clock in ms. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * A member's heartbeat, and the leader lease with it.
 * KEYS: members (sorted set: member → expiry), this member's key, the leader key.
 * ARGV: member id, ttl ms, what the member key holds, 1 to take or renew the lease (0 to leave it).
 * Sets the member's key with the ttl, scores it in the set, drops members whose score
 * passed, then takes the lease if nobody holds it (SET NX PX) or renews it if this member
 * does. Returns { live members, the lease holder or false }.
 */
export const HEARTBEAT = `${NOW}
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ttl)
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], ttl * 10)
local leader = redis.call('GET', KEYS[3])
if ARGV[4] == '1' then
  if leader == ARGV[1] then
    redis.call('PEXPIRE', KEYS[3], ttl)
  elseif not leader then
    redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ttl)
    leader = ARGV[1]
  end
end
return { redis.call('ZRANGE', KEYS[1], 0, -1), leader }`;

/**
 * A member leaving: out of the set, its key gone, the lease released if it held it.
 * KEYS: members, this member's key, the leader key. ARGV: member id.
 */
export const LEAVE = `redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
return 1`;

/**
 * Tokens from an upstream's shared bucket: refilled at `rps` a second up to `capacity`,
 * paused while held (an upstream's Retry-After).
 * KEYS: the bucket (hash: tokens, at, held). ARGV: rps, capacity, tokens wanted, tokens to
 * leave in the bucket (1 for polls and read-through while the bucket can hold 2, so the
 * queue-size poll of whichever replica leads finds one), ms to hold the bucket for (0: none).
 * Returns { tokens granted, ms until another could be }.
 */
export const TAKE_TOKENS = `${NOW}
local rps = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local reserve = tonumber(ARGV[4])
local hold = tonumber(ARGV[5])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at', 'held')
local tokens = tonumber(b[1]) or capacity
local at = tonumber(b[2]) or now
local held = tonumber(b[3]) or 0
if hold > 0 and now + hold > held then held = now + hold end
if now > at then tokens = math.min(capacity, tokens + (now - at) * rps / 1000) end
local granted = 0
if now >= held then
  local usable = math.floor(tokens - reserve)
  if usable > 0 then
    granted = math.min(want, usable)
    tokens = tokens - granted
  end
end
local wait = 0
if granted < want then
  if now < held then wait = held - now else wait = math.ceil((1 + reserve - tokens) * 1000 / rps) end
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now, 'held', held)
redis.call('PEXPIRE', KEYS[1], 60000)
return { granted, math.max(wait, 1) }`;

/*
 * The Redis side of provider admission, one Lua script per operation so each is atomic across processes.
 * Time is Redis's own (TIME), so processes with skewed clocks still agree on buckets, leases and pauses.
 *
 * Keys: `{prefix}models:pause:{provider}` holds the epoch ms a pause ends (and expires then); each limit
 * has `…:inflight` (a sorted set of permits scored by their lease's end: a process that died stops holding
 * its places once the lease runs out), `…:requests` and `…:tokens` (token buckets: `level`, `at`), the same
 * arithmetic as `src/core/model-limits/token-bucket.ts`.
 */

const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

const LEVEL = `
local function level(key, perMinute)
  local stored = redis.call('HMGET', key, 'level', 'at')
  if not stored[1] then return perMinute end
  local elapsed = math.max(0, now - tonumber(stored[2]))
  return math.min(perMinute, tonumber(stored[1]) + elapsed * perMinute / 60000)
end
`;

/**
 * KEYS: the pause, then per limit its inflight, requests, tokens. ARGV: permit, lease ms, tokens needed,
 * then per limit: concurrency, requests a minute, tokens a minute (0 = none), provider-wide (1/0).
 * Returns {1} when taken, else {0, ms until a time-based limit allows (-1: at a release), provider-wide,
 * paused}.
 */
export const TAKE = `${NOW}${LEVEL}
local pause = tonumber(redis.call('GET', KEYS[1]) or '0')
if pause > now then return {0, pause - now, 1, 1} end
local count = (#KEYS - 1) / 3
local lease = tonumber(ARGV[2])
local need = tonumber(ARGV[3])
local wait = -1
local refused = 0
local wide = 0
local levels = {}
for i = 1, count do
  local base = 3 + (i - 1) * 4
  local concurrency = tonumber(ARGV[base + 1])
  local rpm = tonumber(ARGV[base + 2])
  local tpm = tonumber(ARGV[base + 3])
  local k = 1 + (i - 1) * 3
  local blocked = false
  if concurrency > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[k + 1], '-inf', now)
    if redis.call('ZCARD', KEYS[k + 1]) >= concurrency then blocked = true end
  end
  if rpm > 0 then
    local current = level(KEYS[k + 2], rpm)
    levels[k + 2] = current
    if current < 1 then
      blocked = true
      wait = math.max(wait, math.ceil((1 - current) * 60000 / rpm))
    end
  end
  if tpm > 0 then
    local charge = math.min(need, tpm)
    local current = level(KEYS[k + 3], tpm)
    levels[k + 3] = current
    if current < charge then
      blocked = true
      wait = math.max(wait, math.ceil((charge - current) * 60000 / tpm))
    end
  end
  if blocked then
    refused = 1
    if tonumber(ARGV[base + 4]) == 1 then wide = 1 end
  end
end
if refused == 1 then return {0, wait, wide} end
for i = 1, count do
  local base = 3 + (i - 1) * 4
  local k = 1 + (i - 1) * 3
  if tonumber(ARGV[base + 1]) > 0 then
    redis.call('ZADD', KEYS[k + 1], now + lease, ARGV[1])
    redis.call('PEXPIRE', KEYS[k + 1], lease * 2)
  end
  local rpm = tonumber(ARGV[base + 2])
  if rpm > 0 then
    redis.call('HSET', KEYS[k + 2], 'level', levels[k + 2] - 1, 'at', now)
    redis.call('PEXPIRE', KEYS[k + 2], 120000)
  end
  local tpm = tonumber(ARGV[base + 3])
  if tpm > 0 then
    redis.call('HSET', KEYS[k + 3], 'level', levels[k + 3] - math.min(need, tpm), 'at', now)
    redis.call('PEXPIRE', KEYS[k + 3], 120000)
  end
end
return {1}
`;

/**
 * KEYS: per limit its inflight and tokens. ARGV: permit, tokens used (-1: keep the estimate), channel,
 * provider, then per limit: tokens a minute (0 = none), tokens charged at admission.
 */
export const GIVE = `${NOW}${LEVEL}
local used = tonumber(ARGV[2])
for i = 1, #KEYS / 2 do
  local k = 1 + (i - 1) * 2
  redis.call('ZREM', KEYS[k], ARGV[1])
  local tpm = tonumber(ARGV[3 + i * 2])
  if used >= 0 and tpm > 0 then
    local charged = tonumber(ARGV[4 + i * 2])
    redis.call('HSET', KEYS[k + 1], 'level', math.min(tpm, level(KEYS[k + 1], tpm) + charged - used), 'at', now)
    redis.call('PEXPIRE', KEYS[k + 1], 120000)
  end
end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`;

/** KEYS: the inflight sets holding the permit. ARGV: permit, lease ms. */
export const RENEW = `${NOW}
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', key, tonumber(ARGV[2]) * 2)
end
return 1
`;

/** KEYS: the pause. ARGV: ms from now, channel, provider. A pause only ever extends. */
export const PAUSE = `${NOW}
local ends = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if ends > current and ends > now then
  redis.call('SET', KEYS[1], ends, 'PX', ends - now)
end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`;

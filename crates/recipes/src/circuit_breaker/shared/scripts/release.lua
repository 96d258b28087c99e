-- Settles a trial: closes the fleet, re-opens it, or only gives the lease back. Fenced: only
-- the holder of the live lease (token ARGV[10] in slot ARGV[11]) of the live generation
-- (ARGV[9]) decides anything; a trial whose lease lapsed changes nothing.
-- KEYS and ARGV[1..8] as in failure.lua; ARGV[12]: 'success' | 'failure' | 'release'.
-- Replies {'fenced'} | {'released'} | {'closed', generation} | {'open', generation, window_ms}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = KEYS[7 + tonumber(ARGV[11])]
if redis.call('GET', lease) ~= ARGV[10] then
  return {'fenced'}
end
local open = redis.call('HMGET', KEYS[3], 'gen', 'reopens')
if not open[1] or tonumber(open[1]) ~= tonumber(ARGV[9]) then
  redis.call('DEL', lease)
  return {'fenced'}
end
if ARGV[12] == 'release' then
  redis.call('DEL', lease)
  return {'released'}
end
if ARGV[12] == 'success' then
  redis.call('DEL', KEYS[3], KEYS[1], KEYS[2], lease)
  redis.call('SET', KEYS[5], ARGV[9])
  return {'closed', tonumber(ARGV[9])}
end
-- A failed trial re-opens the fleet: a new generation, a window grown from the reopen count.
local reopens = tonumber(open[2] or '0') + 1
local base, cap = tonumber(ARGV[5]), tonumber(ARGV[6])
local window = base
if cap > base then
  local upper = math.min(cap, base * 2 ^ math.min(reopens, 31))
  window = base + math.floor(tonumber(ARGV[7]) * (upper - base))
end
-- A new generation, never below Redis's clock in milliseconds: a failover that lost the last
-- writes (replication is asynchronous) leaves the promoted replica's counter behind, and a
-- plain INCR would hand out a generation some instance has already seen open or closed.
local generation = math.max(tonumber(redis.call('GET', KEYS[4]) or '0') + 1, now)
redis.call('SET', KEYS[4], generation)
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'gen', generation, 'until', now + window, 'reopens', reopens)
redis.call('PEXPIRE', KEYS[3], window + tonumber(ARGV[8]))
for slot = 8, #KEYS do
  redis.call('DEL', KEYS[slot])
end
return {'open', generation, window}

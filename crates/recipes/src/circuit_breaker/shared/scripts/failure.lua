-- A failure (or several, coalesced) counted while closed: one transition, atomic.
-- KEYS: fails quorum open gen closed hold lease1..leaseN (every script gets the same keys,
-- all under one hash tag). ARGV: instance threshold quorum window_ms base_ms cap_ms jitter
-- lease_ms, then n (failures to add).
-- Replies {'hold'} | {'open', generation, remaining_ms} | {'closed', count, instances}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('EXISTS', KEYS[6]) == 1 then
  return {'hold'}
end
local open = redis.call('HMGET', KEYS[3], 'gen', 'until')
if open[1] then
  -- Already open: late failures change nothing (only the trial's result does).
  return {'open', tonumber(open[1]), tonumber(open[2]) - now}
end
local count = redis.call('INCRBY', KEYS[1], tonumber(ARGV[9]))
redis.call('SADD', KEYS[2], ARGV[1])
-- The failure window is set once, by the first failure; later ones do not extend it.
redis.call('PEXPIRE', KEYS[1], ARGV[4], 'NX')
redis.call('PEXPIRE', KEYS[2], ARGV[4], 'NX')
local instances = redis.call('SCARD', KEYS[2])
if count < tonumber(ARGV[2]) or instances < tonumber(ARGV[3]) then
  return {'closed', count, instances}
end
-- The trip: a new generation, open until now + the tripping instance's first window.
-- A new generation, never below Redis's clock in milliseconds: a failover that lost the last
-- writes (replication is asynchronous) leaves the promoted replica's counter behind, and a
-- plain INCR would hand out a generation some instance has already seen open or closed.
local generation = math.max(tonumber(redis.call('GET', KEYS[4]) or '0') + 1, now)
redis.call('SET', KEYS[4], generation)
local window = tonumber(ARGV[5])
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'gen', generation, 'until', now + window, 'reopens', 0)
redis.call('PEXPIRE', KEYS[3], window + tonumber(ARGV[8]))
redis.call('DEL', KEYS[1], KEYS[2])
return {'open', generation, window}

-- A failure (or several, coalesced) counted while closed: one transition, atomic.
-- KEYS: fails quorum open gen closed hold counted lease1..leaseN (every script gets the same
-- keys, all under one hash tag; `counted` is this instance's own). ARGV: instance threshold
-- quorum window_ms base_ms cap_ms jitter lease_ms, then n (failures to add) and total (every
-- failure this instance has queued, these included).
-- Replies {'hold'} | {'open', generation, remaining_ms} | {'closed', count, instances}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- Counted once, whatever sends them again: a batch that ran but whose answer was lost (a
-- timeout, the Cluster client's retry) comes back with the same total, merged with what was
-- queued since, and only the failures past the instance's last total are new.
local n, total = tonumber(ARGV[9]), tonumber(ARGV[10])
local counted = redis.call('GET', KEYS[7])
if counted then
  n = math.min(n, total - tonumber(counted))
  total = math.max(total, tonumber(counted))
end
-- Kept at least as long as the failure window: once it has gone, so has any count a batch
-- sent before could have added to, and sending it again counts nothing twice.
redis.call('SET', KEYS[7], total, 'PX', math.max(600000, tonumber(ARGV[4])))
if redis.call('EXISTS', KEYS[6]) == 1 then
  return {'hold'}
end
local open = redis.call('HMGET', KEYS[3], 'gen', 'until')
if open[1] then
  -- Already open: late failures change nothing (only the trial's result does).
  return {'open', tonumber(open[1]), tonumber(open[2]) - now}
end
if n <= 0 then
  -- Nothing new: what the first sending answered, as far as it still holds.
  return {'closed', tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('SCARD', KEYS[2])}
end
local count = redis.call('INCRBY', KEYS[1], n)
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

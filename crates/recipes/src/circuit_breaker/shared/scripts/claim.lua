-- Claims a trial lease of open generation ARGV[9] with token ARGV[10], if the fleet's window
-- has elapsed by Redis's clock. KEYS and ARGV[1..8] as in failure.lua.
-- Replies {'won', slot, lease_ms} | {'busy', ms} (every slot held: the shortest lease left)
-- | {'wait', ms} (not yet; or a newer generation, open for ms) | {'closed'} | {'gone'}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local open = redis.call('HMGET', KEYS[3], 'gen', 'until')
if not open[1] then
  local closed = tonumber(redis.call('GET', KEYS[5]) or '0')
  if closed >= tonumber(ARGV[9]) then
    return {'closed'}
  end
  return {'gone'}
end
local remaining = tonumber(open[2]) - now
if tonumber(open[1]) ~= tonumber(ARGV[9]) or remaining > 0 then
  return {'wait', math.max(remaining, 0)}
end
local lease = tonumber(ARGV[8])
local shortest = lease
for slot = 8, #KEYS do
  if redis.call('SET', KEYS[slot], ARGV[10], 'NX', 'PX', lease) then
    -- The record outlives this lease by one more, so that if this trial's instance dies, the
    -- next claim still finds it (its safety TTL was window + lease from the trip).
    redis.call('PEXPIRE', KEYS[3], 2 * lease, 'GT')
    return {'won', slot - 7, lease}
  end
  shortest = math.min(shortest, math.max(redis.call('PTTL', KEYS[slot]), 0))
end
return {'busy', shortest}

#!lua flags=no-writes
-- The background refresh: the fleet's state in one read-only call (EVALSHA_RO).
-- KEYS as in failure.lua. Replies {hold, generation, remaining_ms, count, closed}: hold is ''
-- or 'open' or 'closed'; generation 0 when the fleet is not open.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local open = redis.call('HMGET', KEYS[3], 'gen', 'until')
local generation, remaining = 0, 0
if open[1] then
  generation = tonumber(open[1])
  remaining = tonumber(open[2]) - now
end
return {
  redis.call('GET', KEYS[6]) or '',
  generation,
  remaining,
  tonumber(redis.call('GET', KEYS[1]) or '0'),
  tonumber(redis.call('GET', KEYS[5]) or '0'),
}

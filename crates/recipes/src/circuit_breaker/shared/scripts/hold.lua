-- An operator's hold for the whole fleet: ARGV[9] = 'open' | 'closed' | 'release'. A release
-- also closes the fleet (as a successful trial would), so every instance ends closed.
-- KEYS and ARGV[1..8] as in failure.lua. Replies the closed generation (0 if none was open).
if ARGV[9] ~= 'release' then
  redis.call('SET', KEYS[6], ARGV[9])
  return 0
end
redis.call('DEL', KEYS[6], KEYS[1], KEYS[2])
local generation = tonumber(redis.call('HGET', KEYS[3], 'gen') or '0')
if generation > 0 then
  redis.call('SET', KEYS[5], generation)
end
redis.call('DEL', KEYS[3])
for slot = 8, #KEYS do
  redis.call('DEL', KEYS[slot])
end
return generation

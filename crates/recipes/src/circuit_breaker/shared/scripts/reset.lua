-- A success after failures: the fleet's count starts again, unless the fleet is open (a late
-- success must not undo a trip). KEYS and ARGV[1..8] as in failure.lua. Replies 1 if reset.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1

--[[
  A request's measured cost corrects its key's turns (scheduler/fair-turns.ts): the turn its key's
  next request may take moves by the difference between what the request cost and what was
  estimated at its join, never to or before the key's latest turn (its requests keep their order).
  A key the turns no longer hold (the count started over) is left alone.

  Input:
    KEYS[1] turns hash

    ARGV[1] key id
    ARGV[2] measured cost minus estimated cost, in turns

  Output:
    the turn the key's next request may take, or nil when the key is not there
]]
local after = redis.call('HGET', KEYS[1], ARGV[1])
if not after then return nil end
local last = tonumber(redis.call('HGET', KEYS[1], 'last:' .. ARGV[1]) or '0')
local corrected = math.max(tonumber(after) + tonumber(ARGV[2]), last + 1)
redis.call('HSET', KEYS[1], ARGV[1], corrected)
return corrected

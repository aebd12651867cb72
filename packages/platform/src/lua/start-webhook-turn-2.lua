--[[
  A delivery's attempt starts: the turn being served moves up to its own. Once no delivery waits
  past the restart turn, the count of turns starts over (BullMQ's priorities end at 2^21 - 1).

  Input:
    KEYS[1] webhook turns hash
    KEYS[2] BullMQ's set of the webhook queue's waiting (prioritized) jobs

    ARGV[1] the attempt's turn
    ARGV[2] the turn past which the count starts over

  Output:
    nil
]]
local turn = tonumber(ARGV[1])
local serving = tonumber(redis.call('HGET', KEYS[1], 'serving') or '0')
if redis.call('ZCARD', KEYS[2]) == 0 and math.max(turn, serving) >= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
elseif turn > serving then
  redis.call('HSET', KEYS[1], 'serving', turn)
end

--[[
  A job starts: it leaves the waiting set (and the backlog its token) and moves the turn being
  served up to its own. A retry, no longer waiting, changes nothing. Once the waiting set drains
  past the restart turn, the count of turns starts over.

  Input:
    KEYS[1] waiting set
    KEYS[2] turns hash
    KEYS[3] backlog list

    ARGV[1] request id
    ARGV[2] the turn past which the count starts over

  Output:
    1 when the job was waiting, else 0
]]
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('RPOP', KEYS[3])
local turn = math.floor(tonumber(score) / 4294967296)
local serving = tonumber(redis.call('HGET', KEYS[2], 'serving') or '0')
if redis.call('ZCARD', KEYS[1]) == 0 and math.max(turn, serving) >= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[2])
elseif turn > serving then
  redis.call('HSET', KEYS[2], 'serving', turn)
end
return 1

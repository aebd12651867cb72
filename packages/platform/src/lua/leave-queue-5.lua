--[[
  The queue's side of a final record: the id leaves the waiting set (and the backlog its token),
  the unfinished set and its key's count of requests in flight, whoever turned it final.

  Input:
    KEYS[1] waiting set
    KEYS[2] unfinished set
    KEYS[3] in-flight hash
    KEYS[4] owners hash
    KEYS[5] backlog list

    ARGV[1] request id

  Output:
    nil
]]
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('RPOP', KEYS[5]) end
redis.call('ZREM', KEYS[2], ARGV[1])
local owner = redis.call('HGET', KEYS[4], ARGV[1])
if owner then
  redis.call('HDEL', KEYS[4], ARGV[1])
  if redis.call('HINCRBY', KEYS[3], owner, -1) <= 0 then redis.call('HDEL', KEYS[3], owner) end
end

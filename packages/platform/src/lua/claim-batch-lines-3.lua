--[[
  A feeder claims the next lines of an `in_progress` batch to queue, so that at most `window` of
  its lines are fed and not yet ended, and gets their text in the same call. Claimed lines join the
  fed set before they are queued: a feeder killed after this step leaves them there, and the next
  feed queues them (their request ids and job ids are derived from the batch and line, so queueing
  one twice adds nothing). The feeder still looks for a claimed line's record before queueing it: a
  claim lost to a failover (on a Cluster the line's record is on another node) is given again.

  Input:
    KEYS[1] the batch (hash: status, total, next, stopFeeding)
    KEYS[2] the batch's lines fed and not yet ended (set of line indices)
    KEYS[3] the batch's input lines (list of JSON requests)

    ARGV[1] window (lines fed at once)

  Output:
    index, text, index, text, ... of the lines claimed (possibly none); a text is false when the
    input lines are gone
]]
local batch = redis.call('HMGET', KEYS[1], 'status', 'total', 'next', 'stopFeeding')
if batch[1] ~= 'in_progress' or batch[4] == '1' then return {} end
local total = tonumber(batch[2])
local nextLine = tonumber(batch[3] or '0')
local room = tonumber(ARGV[1]) - redis.call('SCARD', KEYS[2])
local claimed = {}
while room > 0 and nextLine < total do
  redis.call('SADD', KEYS[2], nextLine)
  claimed[#claimed + 1] = nextLine
  claimed[#claimed + 1] = redis.call('LINDEX', KEYS[3], nextLine)
  nextLine = nextLine + 1
  room = room - 1
end
if #claimed > 0 then redis.call('HSET', KEYS[1], 'next', nextLine) end
return claimed

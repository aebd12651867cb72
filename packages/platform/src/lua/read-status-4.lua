--[[
  A status read on one Redis: the record and, for one still waiting for a worker (processing, not
  started: the rule of isWaiting in scheduler/stored-status.ts), queue-place-3's answer, in one call.
  A Redis Cluster reads the record, then a waiting one's place on the queue's node.

  Input:
    KEYS[1]    status record
    KEYS[2..4] queue-place-3's keys: waiting set, text stats hash, worker-slots hash

    ARGV[1] now (ms)
    ARGV[2] request id

  Output:
    {the record's HGETALL, flat}, plus queue-place-3's answer for a waiting record
]]
--- @include "includes/queue-place"
--- @include "includes/slice"

local hash = redis.call('HGETALL', KEYS[1])
local status, started
for i = 1, #hash, 2 do
  if hash[i] == 'status' then status = hash[i + 1] elseif hash[i] == 'startedAt' then started = true end
end
if status ~= 'processing' or started then return {hash} end
return {hash, queuePlace(slice(KEYS, 2, 3), ARGV)}

--[[
  Marks a job's first start (a retry changes nothing a client sees; start-turn-3 takes the id out
  of the waiting set beside it). A record that is gone (expired, never written) is left gone:
  writing to it would leave a key without a TTL.

  Input:
    KEYS[1] status record

    ARGV[1] now (ms)
    ARGV[2] request id
    ARGV[3] status-changed channel

  Output:
    the record's status, or nil for a missing record
]]
--- @include "includes/publish-change"

if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'processing' and redis.call('HSETNX', KEYS[1], 'startedAt', ARGV[1]) == 1 then
  publishChange(KEYS[1], ARGV[3], ARGV[2])
end
return status

--[[
  A batch's cancel: an `in_progress` (or `validating`) batch turns `cancelling`, once; its feeders
  then feed nothing more, cancel its queued lines and write its files. Any other state is left.

  Input:
    KEYS[1] the batch (hash)

    ARGV[1] now (Unix seconds)

  Output:
    the batch's status after the call ('' when there is no such batch)
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return '' end
if status == 'in_progress' or status == 'validating' then
  redis.call('HSET', KEYS[1], 'status', 'cancelling', 'cancelling_at', ARGV[1])
  return 'cancelling'
end
return status

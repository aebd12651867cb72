--[[
  The two steps every write that changes what a client sees ends with: the record's `rev` counts up
  by one (the status stream's event id) and its request id is published on the status-changed
  channel (the stream's wake-up), in the same script as the write, so a change and its notice
  cannot part. Channels are not keys (a cluster forwards a PUBLISH to every node): they come as
  arguments.
]]
local function publishChange(statusKey, channel, requestId)
  redis.call('HINCRBY', statusKey, 'rev', 1)
  redis.call('PUBLISH', channel, requestId)
end

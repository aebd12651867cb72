--[[
  One line of a batch has ended: counted once (the done hash decides, so a second telling of the
  same end changes nothing), taken out of the lines fed, and when it is the batch's last line of an
  `in_progress` batch, the batch turns `finalizing` (its files are then written by a feeder).

  Input:
    KEYS[1] the batch (hash: status, total, completed, failed, ...)
    KEYS[2] the batch's ended lines (hash: line index -> '' or a JSON error)
    KEYS[3] the batch's lines fed and not yet ended (set of line indices)

    ARGV[1] line index
    ARGV[2] 'completed' or 'failed'
    ARGV[3] what to keep of the end ('' : the line's status record says)
    ARGV[4] now (Unix seconds)
    ARGV[5] the feeders' channel to tell of the end ('': none), published in the same call so no feeder
            hears of it before the fed set has let the line go
    ARGV[6] the batch's id (the message published)

  Output:
    1 when counted now, 0 when it was already (or the batch is gone)
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[3]) == 0 then return 0 end
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
local counts = redis.call('HMGET', KEYS[1], 'total', 'completed', 'failed', 'status')
local ended = tonumber(counts[2] or '0') + tonumber(counts[3] or '0')
if counts[4] == 'in_progress' and ended >= tonumber(counts[1]) then
  redis.call('HSET', KEYS[1], 'status', 'finalizing', 'finalizing_at', ARGV[4])
end
if ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
return 1

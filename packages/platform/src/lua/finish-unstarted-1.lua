--[[
  A record that no worker has started turns final (its queue deadline passed, or the submit is
  refused because it would pass): as finish-status-1.lua, but a record a worker has marked started
  (mark-started-1.lua, `startedAt`) is left alone. Both are scripts on the record, so a worker that
  starts the job and this cannot both win.

  Input:
    KEYS[1] status record

    ARGV[1] ttl (s)
    ARGV[2] request id
    ARGV[3] final channel
    ARGV[4] status-changed channel
    ARGV[5] '1' to drop the record's webhook first (the client was refused at submit: it is told
            there, not by a delivery for an id it never received), else '0'
    ARGV[6..] field, value, field, value... (the final record's fields)

  Output:
    as finish-status-1.lua; 0 also when the job has started
]]
--- @include "includes/finish-record"

if redis.call('HEXISTS', KEYS[1], 'startedAt') == 1 then return 0 end
if ARGV[5] == '1' then redis.call('HDEL', KEYS[1], 'webhook', 'webhookEvents') end
return finishRecord(KEYS, {ARGV[1], ARGV[2], ARGV[3], ARGV[4], unpack(ARGV, 6)})

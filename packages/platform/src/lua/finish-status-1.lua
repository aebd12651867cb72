--[[
  A record turns final (`completed` or `error`), once: a record already final, or gone, is left as
  it is, so a second attempt finishing after the first cannot change the answer. The request id is
  published on the final channel (a client waiting with `Prefer: wait` is answered at once).

  Input:
    KEYS[1] status record

    ARGV[1] ttl (s)
    ARGV[2] request id
    ARGV[3] final channel
    ARGV[4] status-changed channel
    ARGV[5..] field, value, field, value... (the final record's fields)

  Output:
    0 when not written; else {owner, model, webhook URL or '', webhook events or '', batch line or
    nil}: for this writer, the one that turned it final, to meter the job into its owner's usage,
    to queue its one webhook delivery and to count a batch line in its batch
]]
--- @include "includes/finish-record"

return finishRecord(KEYS, ARGV)

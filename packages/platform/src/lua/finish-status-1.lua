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
    0 when not written; else {owner, model, webhook URL or '', webhook events or ''}: for this
    writer, the one that turned it final, to meter the job into its owner's usage and to queue its
    one webhook delivery
]]
--- @include "includes/publish-change"

if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
redis.call('HDEL', KEYS[1], 'progress', 'estimatedTimeRemaining', 'partialReply', 'partialAttempt')
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[2])
publishChange(KEYS[1], ARGV[4], ARGV[2])
return redis.call('HMGET', KEYS[1], 'owner', 'model', 'webhook', 'webhookEvents')

--[[
  A webhook delivery joins the queue: it is counted among its key's pending deliveries (a sorted set
  by queueing time whose entries older than the horizon are dropped: a delivery that ended without
  being taken out, as when its worker died) and gets the key's next turn, its job's priority.

  Input:
    KEYS[1] webhook turns hash
    KEYS[2] the key's pending deliveries (sorted set)

    ARGV[1] key id
    ARGV[2] request id
    ARGV[3] now (ms)
    ARGV[4] last turn
    ARGV[5] horizon (ms)

  Output:
    the delivery's turn
]]
--- @include "includes/webhook-turn"

local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[5]))
redis.call('ZADD', KEYS[2], 'NX', now, ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return nextWebhookTurn(KEYS[1], ARGV[1], tonumber(ARGV[4]))

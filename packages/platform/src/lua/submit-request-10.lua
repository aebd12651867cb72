--[[
  A submit on one Redis: join-queue-8, create-status-1 and index-request-1 as one call and one write
  instead of three (a Redis Cluster sends them apart: their keys sit in different slots). A refused
  join (the key at its in-flight cap) writes no record.

  Input:
    KEYS[1..8] join-queue-8's keys: tickets, waiting, unfinished, turns, in-flight, owners,
               text stats, backlog
    KEYS[9]    status record (create-status-1's)
    KEYS[10]   the owner's request index (index-request-1's)

    ARGV[1..6]   join-queue-8's: createdAt (ms), request id, key id, in-flight cap, last turn, cost
    ARGV[7..12]  create-status-1's: ttl (s), owner, model, createdAt (ms), webhook URL ('' for none),
                 its events
    ARGV[13..15] index-request-1's: ttl (s), createdAt (ms), request id

  Output:
    join-queue-8's: {ticket, turn}, or {0, held, average job seconds} when refused
]]
--- @include "includes/join-queue"
--- @include "includes/create-status"
--- @include "includes/index-request"
--- @include "includes/slice"

local joined = joinQueue(slice(KEYS, 1, 8), slice(ARGV, 1, 6))
if joined[1] == 0 then return joined end
createStatus(slice(KEYS, 9, 1), slice(ARGV, 7, 6))
indexRequest(slice(KEYS, 10, 1), slice(ARGV, 13, 3))
return joined

--[[
  A request joins its owner's index. The index loses what was accepted longer ago than the
  records' retention and lives as long as its newest record.

  Input:
    KEYS[1] the owner's request index (score: createdAt)

    ARGV[1] ttl (s)
    ARGV[2] createdAt (ms)
    ARGV[3] request id

  Output:
    nil
]]
--- @include "includes/index-request"

indexRequest(KEYS, ARGV)

--[[
  Adds one text job's time to the moving average every worker shares, atomically.

  Input:
    KEYS[1] text stats hash

    ARGV[1] the job's time (s)
    ARGV[2] the newest time's weight (0 to 1)

  Output:
    1
]]
--- @include "includes/job-stats"

local previous = tonumber(redis.call('HGET', KEYS[1], AVG_JOB_SECONDS))
local next = previous and (previous + tonumber(ARGV[2]) * (tonumber(ARGV[1]) - previous)) or tonumber(ARGV[1])
redis.call('HSET', KEYS[1], AVG_JOB_SECONDS, string.format('%.3f', next))
return 1

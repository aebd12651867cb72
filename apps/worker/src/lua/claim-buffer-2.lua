--[[
  A hand-over copy has a slot on its worker: it runs if the job's claim still names this worker
  (`handed:<w>`, or `buffer:<w>` for a copy that runs again). The claim then says it runs, and the
  worker's lease on the job starts (renew-lease-2.lua keeps it while the copy runs).

  Input:
    KEYS[1] the job's claim
    KEYS[2] the job's lease

    ARGV[1] this worker's id
    ARGV[2] the claim's ttl (ms)
    ARGV[3] the lease's ttl (ms)

  Output:
    1 when this worker's hand-over copy may run, else 0
]]
local claim = redis.call('GET', KEYS[1])
if claim ~= 'handed:' .. ARGV[1] and claim ~= 'buffer:' .. ARGV[1] then return 0 end
redis.call('SET', KEYS[1], 'buffer:' .. ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
return 1

--[[
  The worker running a job's hand-over copy renews its lease. PEXPIRE, not SET, while the lease
  lasts: Redis refuses SET when it is out of memory (noeviction) but not PEXPIRE, so a copy that
  runs keeps its lease through an OOM. A lease that lapsed while Redis could not be written is set
  again, unless another worker took the job over meanwhile.

  Input:
    KEYS[1] the job's claim
    KEYS[2] the job's lease

    ARGV[1] this worker's id
    ARGV[2] the lease's ttl (ms)

  Output:
    1 while the claim names this worker's copy as the one that runs, 0 when it no longer does
]]
if redis.call('GET', KEYS[1]) ~= 'buffer:' .. ARGV[1] then return 0 end
if redis.call('PEXPIRE', KEYS[2], ARGV[2]) == 0 then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
end
return 1

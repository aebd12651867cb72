--[[
  The shared copy of a job takes it over from the worker whose hand-over copy ran it: only while the
  claim still names that worker's copy and its lease has lapsed (the worker stopped renewing it).

  Input:
    KEYS[1] the job's claim
    KEYS[2] the job's lease

    ARGV[1] the worker whose copy the claim names
    ARGV[2] this worker's id
    ARGV[3] the claim's ttl (ms)

  Output:
    1 when this worker now runs the job's shared copy, else 0
]]
if redis.call('GET', KEYS[1]) ~= 'buffer:' .. ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], 'shared:' .. ARGV[2], 'PX', ARGV[3])
return 1

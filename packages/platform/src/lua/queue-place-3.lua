--[[
  A waiting job's place, read beside its record: jobs ahead of it, and what its ETA is made of.

  Input:
    KEYS[1] waiting set
    KEYS[2] text stats hash
    KEYS[3] worker-slots hash

    ARGV[1] now (ms)
    ARGV[2] request id

  Output:
    {} when the job is not waiting, else {jobs ahead, average job seconds ('' when none), live
    worker slots}
]]
--- @include "includes/queue-place"

return queuePlace(KEYS, ARGV)

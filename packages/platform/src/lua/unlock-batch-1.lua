--[[
  A feeder lets go of a batch's lock, only if it still holds it: a lock that expired (a step longer
  than its hold) and was taken by another feeder stays that feeder's. One call, so no other feeder
  can take the lock between the check and the delete.

  Input:
    KEYS[1] the batch's lock (string: its holder)

    ARGV[1] this feeder (the holder it set)

  Output:
    1 when the lock was this feeder's and is gone, else 0
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0

--[[
  A new status record: always `processing` at progress 0 and rev 1, so those are written here
  rather than sent with every submit. Nothing is published: no client can hold the id before the
  submit answers.

  Input:
    KEYS[1] status record

    ARGV[1] ttl (s)
    ARGV[2] owner (key id)
    ARGV[3] model
    ARGV[4] createdAt (ms)
    ARGV[5] webhook URL ('' for none)
    ARGV[6] the events delivered to it (comma-separated)

  Output:
    nil
]]
--- @include "includes/create-status"

createStatus(KEYS, ARGV)

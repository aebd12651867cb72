--[[
  A request joins the text queue with its turn (fair turns between API keys: scheduler/fair-turns.ts):
  one after its key's previous request, never earlier than the turn being served, at most the last
  turn. It is counted in its key's requests in flight, unless the key already holds its cap.
  Membership decides (the waiting set, the owners hash), so a step counted twice changes nothing.

  Input:
    KEYS[1] tickets counter
    KEYS[2] waiting set (score: turn * 2^32 + ticket)
    KEYS[3] unfinished set (score: createdAt)
    KEYS[4] turns hash (`serving`, and each key's latest turn)
    KEYS[5] in-flight hash (key id -> requests not yet final)
    KEYS[6] owners hash (request id -> key id)
    KEYS[7] text stats hash
    KEYS[8] backlog list (one token per waiting request, for list-length autoscalers)

    ARGV[1] createdAt (ms)
    ARGV[2] request id
    ARGV[3] key id
    ARGV[4] in-flight cap (0: none)
    ARGV[5] last turn (BullMQ's highest priority)

  Output:
    {ticket, turn}, or {0, held, average job seconds ('' when none)} when the key holds its cap
    (nothing written)
]]
--- @include "includes/join-queue"

return joinQueue(KEYS, ARGV)

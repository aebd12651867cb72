--[[
  A request joins the text queue with its turn (fair turns between API keys, weighted by cost:
  scheduler/fair-turns.ts): where its key's previous request ends (that one's turn plus its cost),
  never earlier than one after the turn being served, at most the last turn. It is counted in its key's requests in flight, unless the key already holds its cap.
  Membership decides (the waiting set, the owners hash), so a step counted twice changes nothing.

  Input:
    KEYS[1] tickets counter
    KEYS[2] waiting set (score: turn * 2^32 + ticket)
    KEYS[3] unfinished set (score: createdAt)
    KEYS[4] turns hash (`serving`; per key id, the position its next request may take, a turn or
            between two; `last:<key id>`, the turn of its latest request)
    KEYS[5] in-flight hash (key id -> requests not yet final)
    KEYS[6] owners hash (request id -> key id)
    KEYS[7] text stats hash
    KEYS[8] backlog list (one token per waiting request, for list-length autoscalers)

    ARGV[1] createdAt (ms)
    ARGV[2] request id
    ARGV[3] key id
    ARGV[4] in-flight cap (0: none)
    ARGV[5] last turn (BullMQ's highest priority)
    ARGV[6] the request's cost in turns, weighted by its key's tier (at least a half)

  Output:
    {ticket, turn}, or {0, held, average job seconds ('' when none)} when the key holds its cap
    (nothing written)
]]
--- @include "includes/join-queue"

return joinQueue(KEYS, ARGV)

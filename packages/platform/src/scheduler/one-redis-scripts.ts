import { JOIN_QUEUE, QUEUE_PLACE } from "./fair-turns.js";
import { CREATE, INDEX } from "./status-scripts.js";

/*
 * Scripts that do on one Redis what a cluster does in several calls: their keys sit in different
 * cluster slots (a record in its own, the queue's sets in the text queue's), so a cluster sends the
 * parts apart. On one Redis each is one Lua call and one round trip (docs/performance.md has what
 * that was worth: a submit's CPU, a waiting poll's second round trip).
 */

/** A script's text as a local Lua function of its own KEYS and ARGV (the parameters shadow the globals). */
const asFunction = (name: string, lua: string) => `local function ${name}(KEYS, ARGV)\n${lua}\nend`;

const SLICE = `
local function slice(list, from, count)
  local part = {}
  for i = from, from + count - 1 do part[#part + 1] = list[i] end
  return part
end`;

/** Counts of each part's KEYS and ARGV, in the order the SUBMIT script takes them. */
export const SUBMIT_PARTS = {
  join: { keys: 8, args: 5 },
  create: { keys: 1, args: 5 },
  index: { keys: 1, args: 3 },
} as const;

/**
 * JOIN_QUEUE, CREATE and INDEX as one script: a submit is one Lua call and one write instead of
 * three. Returns JOIN_QUEUE's answer; a refused join (the key at its in-flight cap) writes no record.
 */
export const SUBMIT = `
${asFunction("join", JOIN_QUEUE)}
${asFunction("create", CREATE)}
${asFunction("index", INDEX)}
${SLICE}
local joined = join(slice(KEYS, 1, ${SUBMIT_PARTS.join.keys}), slice(ARGV, 1, ${SUBMIT_PARTS.join.args}))
if joined[1] == 0 then return joined end
create(slice(KEYS, ${SUBMIT_PARTS.join.keys + 1}, 1), slice(ARGV, ${SUBMIT_PARTS.join.args + 1}, ${SUBMIT_PARTS.create.args}))
index(slice(KEYS, ${SUBMIT_PARTS.join.keys + 2}, 1), slice(ARGV, ${SUBMIT_PARTS.join.args + SUBMIT_PARTS.create.args + 1}, ${SUBMIT_PARTS.index.args}))
return joined
`;

/**
 * A status read: KEYS the record, then QUEUE_PLACE's keys; ARGV QUEUE_PLACE's (now, request id).
 * Returns {the record's HGETALL, flat}, plus QUEUE_PLACE's answer for a record that says it waits
 * (processing, not started: the rule of isWaiting in status-store.ts). On a cluster a waiting
 * record's place is a second call, sent once the record has been read.
 */
export const READ_STATUS = `
${asFunction("place", QUEUE_PLACE)}
${SLICE}
local hash = redis.call('HGETALL', KEYS[1])
local status, started
for i = 1, #hash, 2 do
  if hash[i] == 'status' then status = hash[i + 1] elseif hash[i] == 'startedAt' then started = true end
end
if status ~= 'processing' or started then return {hash} end
return {hash, place(slice(KEYS, 2, 3), ARGV)}
`;

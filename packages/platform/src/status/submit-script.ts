import { JOIN_QUEUE } from "./fair-turns.js";
import { CREATE, INDEX } from "./status-scripts.js";

/** A script's text as a local Lua function of its own KEYS and ARGV (the parameters shadow the globals). */
const asFunction = (name: string, lua: string) => `local function ${name}(KEYS, ARGV)\n${lua}\nend`;

/** Counts of each part's KEYS and ARGV, in the order the SUBMIT script takes them. */
export const SUBMIT_PARTS = {
  join: { keys: 8, args: 5 },
  create: { keys: 1, args: 5 },
  index: { keys: 1, args: 3 },
} as const;

/**
 * JOIN_QUEUE, CREATE and INDEX as one script, for one Redis (on a cluster their keys sit in three
 * slots, so they are sent apart): a submit is one Lua call and one write instead of three, which
 * the submit row of `npm run bench` measured. Returns JOIN_QUEUE's answer; a refused join (the key at
 * its in-flight cap) writes no record.
 */
export const SUBMIT = `
${asFunction("join", JOIN_QUEUE)}
${asFunction("create", CREATE)}
${asFunction("index", INDEX)}
local function slice(list, from, count)
  local part = {}
  for i = from, from + count - 1 do part[#part + 1] = list[i] end
  return part
end
local joined = join(slice(KEYS, 1, ${SUBMIT_PARTS.join.keys}), slice(ARGV, 1, ${SUBMIT_PARTS.join.args}))
if joined[1] == 0 then return joined end
create(slice(KEYS, ${SUBMIT_PARTS.join.keys + 1}, 1), slice(ARGV, ${SUBMIT_PARTS.join.args + 1}, ${SUBMIT_PARTS.create.args}))
index(slice(KEYS, ${SUBMIT_PARTS.join.keys + 2}, 1), slice(ARGV, ${SUBMIT_PARTS.join.args + SUBMIT_PARTS.create.args + 1}, ${SUBMIT_PARTS.index.args}))
return joined
`;

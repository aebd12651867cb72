import { readFileSync } from "node:fs";
import type { RedisClient } from "./connection.js";

/**
 * Lua scripts live in files, one script a file as BullMQ keeps them: `<what it does>-<key count>.lua`
 * (no count: the caller passes it first), with a header listing every KEYS and ARGV entry and what it
 * returns. A line `--- @include "includes/x"` brings in `includes/x.lua` (relative to the file that
 * says it, each file once per script): how scripts share functions. Each workspace keeps its scripts
 * in its `src/lua/`, which `npm run build` copies to `dist/lua/`; modules find them relative to their
 * own URL, so the sources (jest) and the build read the same files.
 */

/** A defined script: its keys, then its arguments. */
export type LuaCommand = (...args: (string | number)[]) => Promise<unknown>;

const INCLUDE = /^--- @include "([^"]+)"[ \t]*$/gm;

/** A script's text with its includes in place; `included` holds the files already brought in. */
export function readLuaScript(file: URL, included = new Set<string>([file.href])): string {
  return readFileSync(file, "utf8").replace(INCLUDE, (_line, path: string) => {
    const include = new URL(`${path}.lua`, file);
    if (included.has(include.href)) return "";
    included.add(include.href);
    return readLuaScript(include, included);
  });
}

/** The key count a script's file name ends with (`join-queue-8.lua`: 8), if any. */
export function keyCountOf(fileName: string): number | undefined {
  const count = /-(\d+)\.lua$/.exec(fileName)?.[1];
  return count === undefined ? undefined : Number(count);
}

/** The command a script is defined as: `chorus` and its file name's words (`join-queue-8.lua`: chorusJoinQueue). */
export function commandNameOf(fileName: string): string {
  const words = fileName.replace(/(-\d+)?\.lua$/, "").split("-");
  return `chorus${words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("")}`;
}

/** Each file is read once per process. */
const texts = new Map<string, string>();
/** What each connection has defined, by command name: the file behind it. */
const definedOn = new WeakMap<RedisClient, Map<string, string>>();

/**
 * Defines the scripts `files` names (file names in `dir`) on this connection, once: ioredis then
 * sends EVALSHA, not the script. Returns them under the names given. Every script defined on a
 * connection is copied onto each pipeline ioredis builds there (every auto-pipelined batch too), so
 * define on a connection only what is used on it.
 */
export function defineLuaScripts<Name extends string>(
  redis: RedisClient,
  dir: URL,
  files: Record<Name, string>,
): Record<Name, LuaCommand> {
  const defined = definedOn.get(redis) ?? new Map<string, string>();
  definedOn.set(redis, defined);
  const commands = {} as Record<Name, LuaCommand>;
  for (const [name, fileName] of Object.entries(files) as [Name, string][]) {
    const file = new URL(fileName, dir);
    const command = commandNameOf(fileName);
    const earlier = defined.get(command);
    if (earlier === undefined) {
      const lua = texts.get(file.href) ?? readLuaScript(file);
      texts.set(file.href, lua);
      redis.defineCommand(command, { lua, numberOfKeys: keyCountOf(fileName) });
      defined.set(command, file.href);
    } else if (earlier !== file.href) {
      throw new Error(`two Lua scripts would be ${command} on one connection: ${earlier} and ${file.href}`);
    }
    commands[name] = (redis as unknown as Record<string, LuaCommand>)[command]!.bind(redis);
  }
  return commands;
}

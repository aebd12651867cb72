import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { RedisClient } from "./connection.js";
import { commandNameOf, defineLuaScripts, keyCountOf, readLuaScript } from "./lua-scripts.js";

let root: string;
let dir: URL;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "lua-scripts-"));
  mkdirSync(join(root, "includes"));
  const files: Record<string, string> = {
    "includes/square.lua": "local function square(x) return x * x end",
    "includes/sum-of-squares.lua":
      '--- @include "square"\nlocal function sumOfSquares(a, b) return square(a) + square(b) end',
    "both-2.lua": '--- @include "includes/square"\n--- @include "includes/sum-of-squares"\nreturn sumOfSquares(1, 2)',
    "other-1.lua": "return 1",
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  dir = pathToFileURL(`${root}/`);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A stand-in connection: ioredis defines a script as a method of the client that sends it. */
function fakeRedis() {
  const client = {
    defineCommand: jest.fn((name: string, definition: { lua: string; numberOfKeys?: number }) => {
      (client as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
        return Promise.resolve({ self: this, definition, args });
      };
    }),
  };
  return client;
}

describe("Lua script files", () => {
  it("when a script includes files, then each is in its place once, nested ones found beside the file that names them", () => {
    expect(readLuaScript(new URL("both-2.lua", dir))).toBe(
      "local function square(x) return x * x end\n\n" +
        "local function sumOfSquares(a, b) return square(a) + square(b) end\nreturn sumOfSquares(1, 2)",
    );
  });

  it("when an include names a file that is not there, then reading the script fails with its path", () => {
    writeFileSync(join(root, "broken-0.lua"), '--- @include "includes/absent"');
    expect(() => readLuaScript(new URL("broken-0.lua", dir))).toThrow(/includes\/absent\.lua/);
  });

  it("when a file name ends with a count, then that is its key count and the command is named by its words", () => {
    expect(keyCountOf("join-queue-8.lua")).toBe(8);
    expect(keyCountOf("find-prefix-holder.lua")).toBeUndefined();
    expect(commandNameOf("join-queue-8.lua")).toBe("chorusJoinQueue");
    expect(commandNameOf("find-prefix-holder.lua")).toBe("chorusFindPrefixHolder");
  });

  it("when scripts are defined twice on one connection, then ioredis is asked once, and each name calls its script on that connection", async () => {
    const redis = fakeRedis();
    const first = defineLuaScripts(redis as unknown as RedisClient, dir, { both: "both-2.lua", other: "other-1.lua" });
    defineLuaScripts(redis as unknown as RedisClient, dir, { both: "both-2.lua" });
    expect(redis.defineCommand.mock.calls.map(([name, { numberOfKeys }]) => [name, numberOfKeys])).toEqual([
      ["chorusBoth", 2],
      ["chorusOther", 1],
    ]);
    const sent = (await first.both("k1", "k2", 3)) as { self: unknown; args: unknown[] };
    expect(sent.self).toBe(redis);
    expect(sent.args).toEqual(["k1", "k2", 3]);
  });

  it("when two files would define one command on a connection, then the second is refused", () => {
    mkdirSync(join(root, "elsewhere"));
    writeFileSync(join(root, "elsewhere", "other-1.lua"), "return 2");
    const redis = fakeRedis() as unknown as RedisClient;
    defineLuaScripts(redis, dir, { other: "other-1.lua" });
    expect(() => defineLuaScripts(redis, new URL("elsewhere/", dir), { other: "other-1.lua" })).toThrow(
      /two Lua scripts would be chorusOther/,
    );
  });
});

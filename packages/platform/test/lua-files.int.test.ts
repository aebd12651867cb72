import { describe, expect, it } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { keyCountOf, readLuaScript } from "../src/redis/lua-scripts.js";

/**
 * Lua lives in files: each workspace's src/lua/, copied to dist/lua/ by `npm run build` (the image
 * carries dist/ only), and nowhere in a TypeScript or JavaScript string (an ESLint rule).
 */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function luaFolders(): string[] {
  const folders = ["apps", "packages"].flatMap((group) =>
    readdirSync(join(ROOT, group)).map((workspace) => join(ROOT, group, workspace, "src", "lua")),
  );
  return [...folders, join(ROOT, "bench", "src", "lua")].filter((folder) => existsSync(folder));
}

function luaFilesIn(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".lua"))
    .map((name) => join(folder, name));
}

/** The top-level scripts (not includes) of every workspace. */
const scripts = luaFolders().flatMap((folder) =>
  readdirSync(folder)
    .filter((name) => name.endsWith(".lua"))
    .map((name) => join(folder, name)),
);

function header(text: string): string {
  return /^--\[\[([\s\S]*?)\]\]/.exec(text)?.[1] ?? "";
}

describe("Lua in files", () => {
  it("when the repository is read, then the gateway, the worker, the platform and the bench hold their scripts in src/lua/", () => {
    const owners = luaFolders().map((folder) => relative(ROOT, folder));
    expect(owners).toEqual(
      expect.arrayContaining([
        "apps/gateway/src/lua",
        "apps/worker/src/lua",
        "packages/platform/src/lua",
        "bench/src/lua",
      ]),
    );
  });

  it.each(scripts.map((file) => [relative(ROOT, file), file]))(
    "when %s is read, then its includes are in place and its header lists each of its keys and what it returns",
    (_name, file) => {
      const text = readLuaScript(pathToFileURL(file));
      expect(text).not.toMatch(/@include/);
      const top = header(readFileSync(file, "utf8"));
      expect(top).toMatch(/Output:/);
      const keys = keyCountOf(file);
      if (keys === undefined) return;
      expect(top).toMatch(new RegExp(`KEYS\\[(\\d+\\.\\.)?${keys}\\]`));
      expect(top).not.toMatch(new RegExp(`KEYS\\[(\\d+\\.\\.)?${keys + 1}\\]`));
    },
  );

  it("when npm run build has run, then every script and include is in dist/lua/ as it is in src/lua/", () => {
    const files = luaFolders().flatMap(luaFilesIn);
    expect(files.length).toBeGreaterThan(0);
    const differing = files.filter((file) => {
      const built = file.replace(`${join("src", "lua")}`, join("dist", "lua"));
      return !existsSync(built) || readFileSync(built, "utf8") !== readFileSync(file, "utf8");
    });
    expect(differing.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it("when Lua is written in a string or template literal, then the lint refuses it, and other strings pass", () => {
    // A file ESLint does not read by itself (.txt), given to it as a module of the platform's sources.
    const source = readFileSync(new URL("fixtures/lua-in-strings.js.txt", import.meta.url), "utf8");
    const eslint = spawnSync(
      process.execPath,
      [
        join(ROOT, "node_modules/eslint/bin/eslint.js"),
        "--stdin",
        "--stdin-filename",
        "packages/platform/src/x.mjs",
        "--format",
        "json",
      ],
      { cwd: ROOT, input: source, encoding: "utf8" },
    );
    const [result] = JSON.parse(eslint.stdout) as { messages: { ruleId: string; line: number }[] }[];
    expect(result?.messages.map(({ ruleId, line }) => [ruleId, line])).toEqual([
      ["no-restricted-syntax", 1],
      ["no-restricted-syntax", 4],
    ]);
  });
});

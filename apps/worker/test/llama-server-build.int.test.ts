import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureLlamaServerBuild, llamaServerPath } from "../src/engines/llm/llama-server.build.js";
import { isAlive, waitUntilGone } from "../../../test-support/process-tree.js";
import { standInToolsPath } from "../../../test-support/stand-in-tools.js";
import { waitFor } from "../../../test-support/wait-for.js";

/**
 * How `npm run llama:build` runs llama-server's build: one at a time per cache, saying how far it
 * is, and stopped with whoever started it. A stand-in toolchain (git and cmake scripts first on
 * PATH) takes the compiler's place: it prints Ninja's steps, starts a long "compiler" in its
 * process group, and writes the binary at the end, so no test compiles llama.cpp.
 */
const BUILD_LLAMA = fileURLToPath(new URL("../dist/build-llama.js", import.meta.url));

const FAKE_GIT = `#!/bin/sh
mkdir -p "$4"
`;
const FAKE_CMAKE = `#!/bin/sh
if [ "$1" = "-S" ]; then mkdir -p "$4"; exit 0; fi
echo "$$" >> "$FAKE_BUILDS"
sleep "$FAKE_STEP_SECONDS" &
echo "$!" >> "$FAKE_BUILDS"
for step in 1 2 3; do echo "[$step/3] Building CXX object step$step.o"; sleep "$FAKE_STEP_SECONDS"; done
mkdir -p "$2/bin" && echo "llama-server stand-in" > "$2/bin/llama-server"
`;

let dir: string;
let cache: string;
let builds: string;

function toolchain(stepSeconds: number): NodeJS.ProcessEnv {
  const PATH = standInToolsPath(dir, { git: FAKE_GIT, cmake: FAKE_CMAKE });
  return { ...process.env, PATH, FAKE_BUILDS: builds, FAKE_STEP_SECONDS: String(stepSeconds) };
}

/** The pids the stand-in cmake wrote: its own, then its "compiler"'s, one pair a build. */
const buildPids = () =>
  existsSync(builds) ? readFileSync(builds, "utf8").trim().split("\n").filter(Boolean).map(Number) : [];

/** A process id that was in use and is not any more. */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await once(child, "exit");
  return child.pid ?? 999_999;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chorus-llama-build-"));
  cache = join(dir, "cache");
  builds = join(dir, "builds.txt");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("llama-server's build (stand-in toolchain)", () => {
  it("when two builds start at once on one cache, then one compiles, the other waits for it, and both get its binary", async () => {
    const env = toolchain(0.1);
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    const [first, second] = await Promise.all([
      ensureLlamaServerBuild({ cacheRoot: cache, log, env }),
      ensureLlamaServerBuild({ cacheRoot: cache, log, env }),
    ]);
    expect([first.outcome, second.outcome].sort()).toEqual(["built", "present"]);
    expect(first.path).toBe(llamaServerPath(cache));
    expect(readFileSync(first.path, "utf8")).toContain("stand-in");
    expect(buildPids()).toHaveLength(2); // one cmake --build and its compiler
    expect(lines.some((line) => line.includes("another build") && line.includes("waiting for it"))).toBe(true);
    expect(readdirSync(cache).filter((entry) => entry.startsWith("."))).toEqual([]); // no lock, no scratch left
  }, 30_000);

  it("when it builds, then it says how far it is with the steps done and the time left", async () => {
    const lines: string[] = [];
    await ensureLlamaServerBuild({
      cacheRoot: cache,
      log: (line) => lines.push(line),
      progressIntervalMs: 0,
      env: toolchain(0.1),
    });
    expect(lines).toEqual(
      expect.arrayContaining([expect.stringMatching(/^llama-server: step 2 of 3, about .* left$/)]),
    );
  }, 30_000);

  it("when a killed build left its lock and scratch folder, then the next build takes over and removes them", async () => {
    const env = toolchain(0.05);
    const gone = await deadPid();
    mkdirSync(join(cache, `.llama-server.${gone}.tmp`, "build"), { recursive: true });
    writeFileSync(join(cache, ".llama-server.lock"), String(gone));
    const { outcome } = await ensureLlamaServerBuild({ cacheRoot: cache, log: () => undefined, env });
    expect(outcome).toBe("built");
    expect(readdirSync(cache).filter((entry) => entry.startsWith("."))).toEqual([]);
  }, 30_000);

  it.each([
    ["it is stopped (SIGTERM)", "signal"],
    ["the command that started it is killed (kill -9)", "launcher"],
  ] as const)(
    "when %s mid-build, then every compiler stops at once and nothing is left in the cache",
    async (_how, how) => {
      const env = toolchain(60);
      const command = `"${process.execPath}" "${BUILD_LLAMA}" --cache "${cache}"; true`; // `; true`: the shell stays its parent
      const launcher = spawn("/bin/sh", ["-c", command], { env, stdio: "ignore" });
      await waitFor("cmake and a compiler running", () => buildPids().length >= 2);
      const [cmake = 0, compiler = 0] = buildPids();
      expect(isAlive(compiler)).toBe(true);
      if (how === "launcher") launcher.kill("SIGKILL");
      else spawn("pkill", ["-TERM", "-f", BUILD_LLAMA]);
      expect(await waitUntilGone(cmake, 10_000)).toBe(true);
      expect(await waitUntilGone(compiler, 10_000)).toBe(true);
      const leftovers = () => readdirSync(cache).filter((entry) => entry.startsWith("."));
      await waitFor("the half-built files removed", () => leftovers().length === 0, { timeoutMs: 5000 });
      expect(existsSync(llamaServerPath(cache))).toBe(false);
    },
    30_000,
  );
});

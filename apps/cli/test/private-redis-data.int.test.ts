import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@chorus/local-runtime";
import {
  KEYS_SCRIPT,
  processTree,
  quickServiceEnv,
  runInOwnGroup,
  START_SCRIPT,
  survivors,
  waitForText,
  type TreeProcess,
} from "../../../test-support/local-service.js";

/**
 * `npm start`'s private redis-server keeps its data (API keys above all) across runs in a data
 * directory, unless told to keep nothing. Driven as a user does: start, `npm run keys -- create`,
 * Ctrl-C, start again, and use the key.
 */
let dir: string;
let port: number;
let started: TreeProcess[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "chorus-redis-data-"));
  port = await freePort();
});
afterEach(async () => {
  await survivors(started, 0);
  started = [];
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function start(args: string[], env: Record<string, string> = {}) {
  const run = runInOwnGroup(process.execPath, [START_SCRIPT, "--private-redis", ...args], {
    ...quickServiceEnv(dir, port),
    ...env,
  });
  await waitForText(run, /\[start\] ready/);
  started = processTree(run.process.pid!);
  return {
    output: run.output,
    stop: async () => {
      run.process.kill("SIGINT");
      expect(await run.exited).toBe(0);
    },
  };
}

function createKey(): string {
  const result = spawnSync(process.execPath, [KEYS_SCRIPT, "create", "--name", `k${Date.now()}`], {
    encoding: "utf8",
    env: quickServiceEnv(dir, port),
  });
  // stderr holds only the key's webhook signing secret, shown this once beside the key.
  expect(result.stderr).toMatch(/^webhook signing secret of key_[0-9a-f]+ \(shown this once\): whsec_\S+\n$/);
  return result.stdout.trim();
}

/** The key's answer for a status that does not exist: 404 when the key is known, 401 when not. */
const statusWith = async (key: string) =>
  (
    await fetch(`http://127.0.0.1:${port}/api/v2/status/00000000-0000-4000-8000-000000000000`, {
      headers: { Authorization: `Bearer ${key}` },
    })
  ).status;

describe("npm start's private Redis", () => {
  it("when stopped and started again with its data directory, then a key created before still authenticates", async () => {
    const data = join(dir, "kept");
    const first = await start(["--redis-data", data]);
    expect(first.output()).toContain(`its data (API keys, jobs) is kept in ${data}`);
    const key = createKey();
    expect(await statusWith(key)).toBe(404);
    await first.stop();

    await start(["--redis-data", data]);
    expect(await statusWith(key)).toBe(404);
  });

  it("when CHORUS_REDIS_DATA is none, then nothing is kept: the key of the run before is unknown", async () => {
    const first = await start([], { CHORUS_REDIS_DATA: "none" });
    expect(first.output()).toContain("keeps nothing");
    const key = createKey();
    expect(await statusWith(key)).toBe(404);
    await first.stop();

    await start([], { CHORUS_REDIS_DATA: "none" });
    expect(await statusWith(key)).toBe(401);
  });

  it("when another npm start uses the data directory, then a second one refuses and names it", async () => {
    const data = join(dir, "shared");
    await start(["--redis-data", data]);
    const second = spawnSync(process.execPath, [START_SCRIPT, "--private-redis", "--redis-data", data], {
      encoding: "utf8",
      env: quickServiceEnv(dir, port + 1),
    });
    expect(second.status).toBe(1);
    expect(second.stdout).toContain(`${data} is in use by another npm start`);
  });
});

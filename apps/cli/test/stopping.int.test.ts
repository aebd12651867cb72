import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@chorus/local-runtime";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import {
  processTree,
  quickServiceEnv,
  runInOwnGroup,
  START_SCRIPT,
  survivors,
  waitForText,
  type RunningChild,
  type TreeProcess,
} from "../../../test-support/local-service.js";

/**
 * `npm start`, `npm run gateway` and `npm run worker` as a user runs them, stopped the ways a user
 * stops them: Ctrl-C (SIGINT to the terminal's whole foreground group), `kill` of the npm process,
 * `kill -9` of the launcher. Nothing of the process tree may be left, the private redis-server
 * included, and nothing may print a stack trace or a connection error on the way down.
 */
let dir: string;
const prefix = uniquePrefix("stopping");
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), "chorus-stopping-"))));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await deleteKeysWithPrefix(TEST_REDIS_URL, prefix);
});
/** Whatever a failed test left running is killed before the next starts. */
let started: TreeProcess[] = [];
afterEach(async () => {
  await survivors(started, 0);
  started = [];
});
const remember = (tree: TreeProcess[]) => (started = tree);

/** `npm start` on a private Redis keeping its data in the test's directory; resolves once it says ready. */
async function npmStart(): Promise<{ run: RunningChild; tree: TreeProcess[] }> {
  const env = quickServiceEnv(dir, await freePort());
  const run = runInOwnGroup(
    "npm",
    ["start", "--silent", "--", "--private-redis", "--redis-data", join(dir, "redis")],
    env,
  );
  await waitForText(run, /\[start\] ready/);
  const tree = remember(processTree(run.process.pid!));
  expect(
    tree.filter((p) => /^redis-server|apps\/gateway\/dist\/main|apps\/worker\/dist\/main/.test(p.command)),
  ).toHaveLength(3);
  return { run, tree };
}

const noisy = (output: string) => output.split("\n").filter((line) => /ECONNREFUSED|^\s+at |Error:/.test(line));

describe("npm start", () => {
  it("when Ctrl-C reaches its foreground group, then gateways, workers and the private Redis stop quietly and nothing is left", async () => {
    const { run, tree } = await npmStart();
    process.kill(-run.process.pid!, "SIGINT");
    expect(await survivors(tree)).toEqual([]);
    expect(noisy(run.output())).toEqual([]);
    const stops = run
      .output()
      .split("\n")
      .filter((line) => /shutting down/.test(line))
      .map((line) => (/gateway|worker/.exec(line) ?? ["?"])[0]);
    expect(stops).toEqual(["gateway", "worker"]);
    // The launcher's last word, after Redis: npm's copy of the Ctrl-C must not cut its stop short.
    expect(run.output().trimEnd().split("\n").at(-1)).toBe("[start] stopped");
  });

  it("when the npm process is killed, then the signal reaches the launcher and nothing is left", async () => {
    const { run, tree } = await npmStart();
    run.process.kill("SIGTERM");
    expect(await survivors(tree)).toEqual([]);
    expect(noisy(run.output())).toEqual([]);
    expect(run.output().trimEnd().split("\n").at(-1)).toBe("[start] stopped");
  });

  it("when the launcher is killed with kill -9, then its gateway, worker and redis-server stop by themselves", async () => {
    const { tree } = await npmStart();
    const launcher = tree.find((p) => p.command.includes(START_SCRIPT) || p.command.includes("apps/cli/dist/start.js"));
    expect(launcher).toBeDefined();
    process.kill(launcher!.pid, "SIGKILL");
    expect(await survivors(tree)).toEqual([]);
  });
});

describe.each(["gateway", "worker"])("npm run %s", (app) => {
  it("when the npm process is killed, then its node process stops too", async () => {
    const env = {
      ...quickServiceEnv(dir, await freePort()),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      LOG_FORMAT: "json",
    };
    const run = runInOwnGroup("npm", ["run", "--silent", app], env);
    await waitForText(run, app === "gateway" ? /gateway listening/ : /worker ready/);
    const tree = remember(processTree(run.process.pid!));
    expect(tree.some((p) => p.command.includes(`apps/${app}/dist/main.js`))).toBe(true);
    run.process.kill("SIGTERM");
    expect(await survivors(tree)).toEqual([]);
  });
});

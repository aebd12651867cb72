import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiKeyStore } from "@chorus/platform/api-keys";
import { createWorkerRedis, redisKeys } from "@chorus/platform/redis";
import { freePort, startPrivateRedis, type PrivateRedis } from "@chorus/local-runtime";
import { defaultRequest, FIXTURE_MODEL } from "../../../test-support/fixtures.js";
import { runInOwnGroup, START_SCRIPT, waitForText, type RunningChild } from "../../../test-support/local-service.js";
import { isAlive, waitUntilGone } from "../../../test-support/process-tree.js";
import { standInToolsPath } from "../../../test-support/stand-in-tools.js";
import { LLAMA_SERVER_BINARY } from "../../../test-support/worker.js";
import { finalRecord } from "../../../test-support/records.js";

/**
 * A first `npm start` on a machine with no llama-server built: the workers start at once on
 * node-llama-cpp's prebuilt binary, llama-server builds meanwhile at the lowest CPU priority, and
 * the workers then restart onto it without losing a job. A stand-in toolchain (git and cmake
 * scripts first on PATH) takes the compiler's place: its "build" waits until the test lets it
 * finish, then puts this machine's real llama-server where the build would, so the restarted
 * worker really runs it.
 */
const FAKE_GIT = `#!/bin/sh
mkdir -p "$4"
`;
const FAKE_CMAKE = `#!/bin/sh
if [ "$1" = "-S" ]; then mkdir -p "$4"; exit 0; fi
sleep 600 &
echo "$!" > "$FAKE_COMPILER_PID"
echo "[1/2] Building CXX object server.o"
while [ ! -e "$FAKE_FINISH" ]; do sleep 0.1; done
kill "$!"
echo "[2/2] Linking CXX executable bin/llama-server"
mkdir -p "$2/bin" && cp "$REAL_LLAMA_SERVER" "$2/bin/llama-server"
`;

let dir: string;
let redis: PrivateRedis;
let run: RunningChild | undefined;
const finish = () => join(dir, "finish");
const compilerPid = () => Number(readFileSync(join(dir, "compiler.pid"), "utf8"));

/** A process's nice value (/proc/PID/stat's 19th field; the command name before it may hold spaces). */
function niceness(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

async function startService(): Promise<{ url: string; run: RunningChild }> {
  const port = await freePort();
  const env = {
    PATH: standInToolsPath(dir, { git: FAKE_GIT, cmake: FAKE_CMAKE }),
    HOME: process.env.HOME ?? "",
    TMPDIR: dir,
    REDIS_URL: redis.url,
    PORT: String(port),
    WORKER_HTTP_PORT: "0",
    LLM_MODEL: FIXTURE_MODEL,
    LLM_THREADS: "1",
    TTS_ENGINE: "none",
    LLAMA_BUILD_CACHE: join(dir, "llama-builds"),
    REAL_LLAMA_SERVER: LLAMA_SERVER_BINARY ?? "",
    FAKE_FINISH: finish(),
    FAKE_COMPILER_PID: join(dir, "compiler.pid"),
  };
  run = runInOwnGroup(process.execPath, [START_SCRIPT], env);
  await waitForText(run, /\[start\] ready/);
  return { url: `http://127.0.0.1:${port}`, run };
}

async function createKey(): Promise<string> {
  const connection = createWorkerRedis(redis.url);
  try {
    return (await new ApiKeyStore(connection, redisKeys("chorus")).create("meanwhile", ["*"], {})).secret;
  } finally {
    connection.disconnect();
  }
}

async function submit(url: string, key: string): Promise<string> {
  const body = { ...defaultRequest(), samplingParams: { max_tokens: 16 } };
  const res = await fetch(`${url}/api/text/default`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "chorus-meanwhile-"));
  redis = await startPrivateRedis([]);
});
afterEach(async () => {
  if (run && run.process.exitCode === null) {
    process.kill(-run.process.pid!, "SIGTERM");
    await run.exited;
  }
  run = undefined;
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

const describeWithServer = existsSync(FIXTURE_MODEL) && LLAMA_SERVER_BINARY ? describe : describe.skip;

describeWithServer("npm start before llama-server is built for this machine", () => {
  it("when the build is still running, then the service is ready on the prebuilt binary; once built, the worker restarts onto llama-server and every request completes", async () => {
    const service = await startService();
    expect(service.run.output()).toContain("llama-server builds meanwhile at low CPU priority");
    expect(service.run.output()).toContain("in-process (prebuilt binary)");
    // The worker says it runs so meanwhile, not that the user should build what is being built.
    expect(service.run.output()).toContain("while npm start builds llama-server for this machine");
    expect(service.run.output()).not.toContain("npm run llama:build");
    expect(isAlive(compilerPid())).toBe(true); // still building while the service is ready
    expect(niceness(compilerPid())).toBe(19); // the compilers yield the cores to generation
    const key = await createKey();
    const before = await submit(service.url, key);
    expect((await finalRecord(service.url, key, before)).status).toBe("completed");

    const during = await submit(service.url, key); // queued or running as the worker restarts
    writeFileSync(finish(), "");
    await waitForText(service.run, /\[start\] worker 1 runs llama-server/);
    const after = await submit(service.url, key);
    for (const id of [during, after]) {
      const record = await finalRecord(service.url, key, id);
      expect([id, record.status]).toEqual([id, "completed"]);
      expect(record.reply?.length).toBeGreaterThan(0);
    }
    expect(service.run.output()).toMatch(/engine ready.*llama-server|llama-server.*engine ready/);
    expect(service.run.output()).not.toContain("stopping the service");
  }, 240_000);

  it("when the service is stopped while llama-server builds, then the build's compilers stop too and nothing half-built is kept", async () => {
    const service = await startService();
    const compiler = compilerPid();
    process.kill(-service.run.process.pid!, "SIGINT"); // a terminal's Ctrl-C reaches the whole group
    expect(await service.run.exited).toBe(0);
    expect(await waitUntilGone(compiler)).toBe(true);
    // No lock, no scratch folder, no llama-server entry.
    expect(
      readdirSync(join(dir, "llama-builds")).filter((entry) => entry.startsWith(".") || entry.endsWith("-server")),
    ).toEqual([]);
  }, 120_000);
});

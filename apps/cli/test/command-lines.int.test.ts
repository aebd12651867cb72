import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

/**
 * Every entry point answers --help with its usage (exit 0) and refuses an option it does not take
 * with the problem and the usage (exit 2), before it touches Redis, a model or a port.
 */
const ENTRY_POINTS = {
  "npm start": "@chorus/cli/start",
  "npm run keys": "@chorus/cli/keys",
  "npm run migrate": "@chorus/cli/migrate",
  "npm run gateway": "@chorus/gateway/main",
  "npm run worker": "@chorus/worker/main",
  "npm run llama:build": "@chorus/worker/build-llama",
} as const;

const resolve = createRequire(import.meta.url).resolve;

function run(script: string, args: string[], env: Record<string, string> = {}) {
  // A Redis URL that answers nothing: the command line must be dealt with before any connection.
  const result = spawnSync(process.execPath, [resolve(script), ...args], {
    encoding: "utf8",
    timeout: 20_000,
    env: { ...process.env, REDIS_URL: "redis://127.0.0.1:1", ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.each(Object.entries(ENTRY_POINTS))("%s", (command, script) => {
  it("when given --help or -h, then it prints its usage and exits 0", () => {
    for (const flag of ["--help", "-h"]) {
      const { code, stdout, stderr } = run(script, [flag]);
      expect({ code, usage: stdout.startsWith(`usage: ${command}`), stderr }).toEqual({
        code: 0,
        usage: true,
        stderr: "",
      });
    }
  });

  it("when given an option it does not take, then it names it, prints its usage and exits 2", () => {
    const { code, stdout, stderr } = run(script, ["--no-such-option"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("--no-such-option");
    expect(stderr).toContain(`usage: ${command}`);
  });
});

describe("the gateway's and worker's usage", () => {
  it("when printed, then it lists the environment variables they read, with defaults", () => {
    expect(run(ENTRY_POINTS["npm run gateway"], ["--help"]).stdout).toMatch(
      /^\s+RATE_LIMIT_STATUS\s+.*\(default 200\)$/m,
    );
    expect(run(ENTRY_POINTS["npm run worker"], ["--help"]).stdout).toMatch(
      /^\s+WORKER_CONCURRENCY\s+.*\(default 2\)$/m,
    );
  });
});

describe("npm start's reading of the apps' settings", () => {
  it("when PORT, WORKER_HTTP_PORT or LLM_THREADS is not a value the app would take, then it names each with the app's own rule and exits 2", () => {
    const { code, stderr } = run(ENTRY_POINTS["npm start"], [], {
      PORT: "80000",
      WORKER_HTTP_PORT: "abc",
      LLM_THREADS: "0",
    });
    expect(code).toBe(2);
    expect(stderr).toContain("PORT: must be <= 65535 (port the gateway listens on)");
    expect(stderr).toContain("WORKER_HTTP_PORT: must be integer");
    expect(stderr).toContain("LLM_THREADS: must be >= 1");
    expect(stderr).toContain("usage: npm start");
  });
});

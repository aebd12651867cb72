import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Every entry point answers --help with its usage (exit 0) and refuses an option it does not take
 * with the problem and the usage (exit 2), before it touches Redis, a model or a port.
 */
const ENTRY_POINTS = {
  "npm start": "../../cli/dist/start.js",
  "npm run keys": "../../cli/dist/keys.js",
  "npm run gateway": "../../gateway/dist/main.js",
  "npm run worker": "../../worker/dist/main.js",
  "npm run llama:build": "../../worker/dist/build-llama.js",
} as const;

function run(script: string, args: string[]) {
  const path = fileURLToPath(new URL(script, import.meta.url));
  // A Redis URL that answers nothing: the command line must be dealt with before any connection.
  const result = spawnSync(process.execPath, [path, ...args], { encoding: "utf8", timeout: 20_000, env: { ...process.env, REDIS_URL: "redis://127.0.0.1:1" } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.each(Object.entries(ENTRY_POINTS))("%s", (command, script) => {
  it("when given --help or -h, then it prints its usage and exits 0", () => {
    for (const flag of ["--help", "-h"]) {
      const { code, stdout, stderr } = run(script, [flag]);
      expect({ code, usage: stdout.startsWith(`usage: ${command}`), stderr }).toEqual({ code: 0, usage: true, stderr: "" });
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
    expect(run(ENTRY_POINTS["npm run gateway"], ["--help"]).stdout).toMatch(/^\s+RATE_LIMIT_STATUS\s+.*\(default 200\)$/m);
    expect(run(ENTRY_POINTS["npm run worker"], ["--help"]).stdout).toMatch(/^\s+WORKER_CONCURRENCY\s+.*\(default 2\)$/m);
  });
});

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@chorus/local-runtime";
import { quickServiceEnv, runInOwnGroup, START_SCRIPT, waitForText } from "../../../test-support/local-service.js";
import { closedPort } from "../../../test-support/ports.js";

/**
 * `npm start` says "ready" only once a worker takes jobs. A new user offline, without LLM_MODEL:
 * the worker cannot download the default model. It must say so within seconds (not after
 * node-llama-cpp's ~12 minutes of retries), and `npm start` must stop with its message instead of
 * having printed "gateway listening" and the key hint.
 */
let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), "chorus-readiness-"))));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("npm start without a reachable model host", () => {
  it("when the worker cannot get its model, then npm start never says ready, prints the worker's advice and exits non-zero", async () => {
    // The quick service's engine settings left out: the default llama engine and model, as a new user has them.
    const quick = Object.entries(quickServiceEnv(dir, await freePort())).filter(([name]) => !name.startsWith("LLM_"));
    const env = {
      ...Object.fromEntries(quick),
      HF_ENDPOINT: `http://127.0.0.1:${await closedPort()}/`,
      MODELS_DIR: join(dir, "models"),
      CHORUS_REDIS_DATA: "none",
    };
    const run = runInOwnGroup(process.execPath, [START_SCRIPT, "--private-redis"], env);

    expect(await run.exited).toBe(1);
    expect(run.output()).toContain("cannot be reached");
    expect(run.output()).toContain("Set LLM_MODEL to the path of a local .gguf file");
    expect(run.output()).toContain("[start] worker 1 exited (code 1); stopping the service");
    expect(run.output()).not.toMatch(/\[start\] (ready|gateway listening|create a key|playground)/);
  });
});

describe("npm start when another program holds the gateway's port", () => {
  it("when that program answers /healthz, then npm start says the port is not its gateway's, never says ready, and exits non-zero", async () => {
    // Another service on the port that answers every probe 200, as a second Chorus or any web app would.
    const foreign = createServer((_req, res) =>
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"status":"ok"}'),
    );
    await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.1", resolve));
    const port = (foreign.address() as AddressInfo).port;
    try {
      const run = runInOwnGroup(process.execPath, [START_SCRIPT, "--private-redis"], {
        ...quickServiceEnv(dir, port),
        CHORUS_REDIS_DATA: "none",
      });

      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(
        `http://127.0.0.1:${port}/healthz answers, but not as the gateway 1 this npm start started`,
      );
      expect(run.output()).toContain("set PORT to a free port");
      expect(run.output()).not.toMatch(/\[start\] (ready|gateway listening|create a key|playground)/);
    } finally {
      foreign.close();
    }
  });
});

describe("npm start's addresses", () => {
  it("when HOST and WORKER_HTTP_HOST are not set, then the gateway and the worker's health port bind loopback only, as their logs say", async () => {
    const port = await freePort();
    const run = runInOwnGroup(process.execPath, [START_SCRIPT, "--private-redis"], {
      ...quickServiceEnv(dir, port),
      CHORUS_REDIS_DATA: "none",
    });
    try {
      await waitForText(run, /\[start\] ready/);
      // The apps' own lines, written from server.address(): the address really bound.
      expect(run.output()).toContain(`gateway listening on http://127.0.0.1:${port} `);
      expect(run.output()).toMatch(/worker health server listening on http:\/\/127\.0\.0\.1:\d+ /);
      expect(run.output()).not.toMatch(/listening on http:\/\/(0\.0\.0\.0|\[::\])/);
      expect(run.output()).toContain(`[start] gateway listening on http://127.0.0.1:${port}\n`);
    } finally {
      process.kill(-run.process.pid!, "SIGINT");
      await run.exited;
    }
  });
});

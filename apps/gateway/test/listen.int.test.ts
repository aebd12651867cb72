import { INSTANCE_HEADER } from "@chorus/platform/process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningChild } from "@chorus/local-runtime";
import { startApp, waitForOutput } from "../../../test-support/processes.js";
import { deleteKeysWithPrefix, TEST_REDIS_ENV, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";

/**
 * A gateway that cannot bind must stop and say what to change; one that binds must log the address
 * it really holds (a taken port was reported as "listening" on an address not bound).
 */
const prefix = uniquePrefix("listen");
let gateway: RunningChild | undefined;
let holder: Server | undefined;

afterEach(async () => {
  await gateway?.kill();
  await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
  gateway = holder = undefined;
});
afterAll(() => deleteKeysWithPrefix(TEST_REDIS_URL, prefix));

const env = (more: Record<string, string>) => ({ ...TEST_REDIS_ENV, REDIS_PREFIX: prefix, ...more });

describe("the gateway's listening socket", () => {
  it("when its port is taken by another program, then it exits non-zero with a message naming the port and PORT", async () => {
    holder = createServer((_req, res) => res.end("someone else"));
    await new Promise<void>((resolve) => holder!.listen(0, "127.0.0.1", resolve));
    const taken = (holder.address() as AddressInfo).port;
    gateway = startApp("gateway", env({ PORT: String(taken) }));

    expect(await gateway.exited).toBe(1);
    expect(gateway.output()).toContain(
      `cannot listen on 127.0.0.1:${taken}: port ${taken} is already in use by another program; stop it, or set PORT to a free port`,
    );
    expect(gateway.output()).not.toContain("gateway listening");
  });

  it("when HOST is not set, then it binds loopback only, and the address it logs is the one that answers with its instance id", async () => {
    gateway = startApp("gateway", env({ PORT: "0", INSTANCE_ID: "listen-test-run" }));
    await waitForOutput(gateway, /gateway listening on (\S+)/);
    const logged = /"message":"gateway listening on (http:\/\/[^" ]+)/.exec(gateway.output())?.[1];

    expect(logged).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await fetch(`${logged!}/healthz`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get(INSTANCE_HEADER)).toBe("listen-test-run");
  });

  it("when HOST is 0.0.0.0, then its log says so and that the port is reachable from other machines", async () => {
    gateway = startApp("gateway", env({ PORT: "0", HOST: "0.0.0.0" }));
    await waitForOutput(gateway, /gateway listening on/);

    expect(gateway.output()).toMatch(
      /gateway listening on http:\/\/0\.0\.0\.0:\d+ \(every network interface: reachable from other machines\)/,
    );
  });
});

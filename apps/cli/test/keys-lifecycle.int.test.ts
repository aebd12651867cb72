import { spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import request from "supertest";
import { startTestGateway } from "../../../test-support/gateway.js";
import { KEYS_SCRIPT } from "../../../test-support/local-service.js";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";

/** `npm run keys` as an operator runs it, on the test Redis under a prefix of its own. */
const prefix = uniquePrefix("keys-life");
afterAll(() => deleteKeysWithPrefix(TEST_REDIS_URL, prefix));

function keys(...args: string[]) {
  const result = spawnSync(process.execPath, [KEYS_SCRIPT, ...args], {
    encoding: "utf8",
    timeout: 20_000,
    env: { ...process.env, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `keys list`'s row of the key named `name`, by column header. */
function rowOf(name: string): Record<string, string> | undefined {
  const [header = "", ...lines] = keys("list").stdout.trim().split("\n");
  const columns = header.split("\t");
  return lines
    .map((line) => Object.fromEntries(line.split("\t").map((cell, i): [string, string] => [columns[i] ?? "", cell])))
    .find((row) => row.NAME === name);
}

/** The status each secret gets, in turn, on a real gateway reading the keys the CLI wrote. */
async function statusesOf(...secrets: string[]): Promise<number[]> {
  const gw = await startTestGateway(prefix, {}, TEST_REDIS_URL);
  try {
    const statuses: number[] = [];
    for (const secret of secrets)
      statuses.push((await request(gw.app).get("/api/voices").auth(secret, { type: "bearer" })).status);
    return statuses;
  } finally {
    await gw.close({ keepKeys: true });
  }
}

describe("npm run keys: expiry, rotation, last use", () => {
  it("when --expires is a duration, a date-time or never, then keys list shows it; a past or malformed one is exit 2", () => {
    const before = Date.now();
    expect(keys("create", "--name", "month", "--expires", "30d").code).toBe(0);
    const expires = Date.parse(rowOf("month")?.EXPIRES ?? "");
    expect(expires - before).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(30 * 86_400_000);
    const id = rowOf("month")?.ID ?? "";
    expect(keys("update", id, "--expires", "2099-01-31T00:00:00Z").code).toBe(0);
    expect(rowOf("month")?.EXPIRES).toBe("2099-01-31T00:00:00.000Z");
    expect(keys("update", id, "--expires", "never").code).toBe(0);
    expect(rowOf("month")?.EXPIRES).toBe("-");

    const past = keys("create", "--name", "past", "--expires", "2020-01-01");
    expect(past).toMatchObject({ code: 2, stdout: "" });
    expect(past.stderr).toContain("expiresAt must be in the future");
    const malformed = keys("update", id, "--expires", "soon");
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("bad --expires 'soon'");
    expect(keys("create", "--name", "never", "--expires", "never").code).toBe(2); // a new key has no expiry to drop
    expect(rowOf("past")).toBeUndefined();
    expect(rowOf("month")?.EXPIRES).toBe("-");
  });

  it("when a key's expiry passes, then a gateway refuses it and keys list says expired", async () => {
    // Long enough for the CLI to start and the first request to be answered on a loaded machine.
    const secret = keys("create", "--name", "brief", "--expires", "10s").stdout.trim();
    expect(await statusesOf(secret)).toEqual([200]);
    await sleep(Date.parse(rowOf("brief")?.EXPIRES ?? "") - Date.now() + 50);
    expect(await statusesOf(secret)).toEqual([401]);
    expect(rowOf("brief")?.STATE).toBe("expired");
  });

  it("when a key is rotated, then its id stays, the new secret works, and only the newest old one overlaps", async () => {
    const first = keys("create", "--name", "rotating", "--limits", "text=9").stdout.trim();
    const id = rowOf("rotating")?.ID ?? "";
    const second = keys("rotate", id, "--overlap", "1h");
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^ck_\S{43}\n$/);
    expect(second.stderr).toContain("works until");
    expect(await statusesOf(first, second.stdout.trim())).toEqual([200, 200]);
    const third = keys("rotate", id, "--overlap", "1h").stdout.trim();
    expect(await statusesOf(first, second.stdout.trim(), third)).toEqual([401, 200, 200]);
    const fourth = keys("rotate", id).stdout.trim(); // no overlap: the old secrets stop at once
    expect(await statusesOf(second.stdout.trim(), third, fourth)).toEqual([401, 401, 200]);
    expect(rowOf("rotating")).toMatchObject({ ID: id, LIMITS: '{"text":9}', STATE: "active" });

    expect(keys("rotate", id, "--overlap", "soon").code).toBe(2);
    const unknown = keys("rotate", "key_0000000000000000");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no key with id");
  });

  it("when a key authenticates, then keys list shows when under LAST USED", async () => {
    const secret = keys("create", "--name", "used").stdout.trim();
    expect(rowOf("used")?.["LAST USED"]).toBe("-");
    const before = Date.now();
    expect(await statusesOf(secret)).toEqual([200]);
    expect(Date.parse(rowOf("used")?.["LAST USED"] ?? "")).toBeGreaterThanOrEqual(before - 1000);
  });
});

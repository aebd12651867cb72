import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";

/** `npm run keys` as a user runs it, on the test Redis under a prefix of its own. */
const KEYS = fileURLToPath(new URL("../../cli/dist/keys.js", import.meta.url));
const prefix = uniquePrefix("keys-cli");
afterAll(() => deleteKeysWithPrefix(TEST_REDIS_URL, prefix));

function keys(...args: string[]) {
  const result = spawnSync(process.execPath, [KEYS, ...args], { encoding: "utf8", timeout: 20_000, env: { ...process.env, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("npm run keys", () => {
  it("when the quick start's create is run twice, then the second says what to do, and --rotate replaces the key", () => {
    const first = keys("create", "--name", "demo");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^ck_\S{43}\n$/);

    const again = keys("create", "--name", "demo");
    expect(again).toMatchObject({ code: 2, stdout: "" });
    expect(again.stderr).toContain("--rotate");

    const rotated = keys("create", "--name", "demo", "--rotate");
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/^ck_\S{43}\n$/);
    expect(rotated.stdout).not.toBe(first.stdout);

    const listed = keys("list").stdout.trim().split("\n");
    expect(listed[0]).toBe("ID\tNAME\tSCOPES\tLIMITS\tCREATED\tSTATE");
    expect(
      listed.slice(1).map((line) =>
        line
          .split("\t")
          .filter((_, i) => i === 1 || i === 5)
          .join(" "),
      ),
    ).toEqual(["demo revoked", "demo active"]);
  });

  it("when a key is revoked, then its name can be given to a new key", () => {
    expect(keys("create", "--name", "temp").code).toBe(0);
    expect(keys("revoke", "temp").code).toBe(0);
    expect(keys("create", "--name", "temp").code).toBe(0);
  });
});

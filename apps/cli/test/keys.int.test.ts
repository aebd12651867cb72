import { spawnSync } from "node:child_process";
import { MAX_API_KEY_NAME_CHARS } from "@chorus/contracts";
import { fileURLToPath } from "node:url";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { closedPort } from "../../../test-support/ports.js";

/** `npm run keys` as a user runs it, on the test Redis under a prefix of its own. */
const KEYS = fileURLToPath(new URL("../../cli/dist/keys.js", import.meta.url));
const prefix = uniquePrefix("keys-cli");
afterAll(() => deleteKeysWithPrefix(TEST_REDIS_URL, prefix));

function keys(...args: string[]) {
  return keysOn(TEST_REDIS_URL, ...args);
}

function keysOn(redisUrl: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [KEYS, ...args], { encoding: "utf8", timeout: 20_000, env: { ...process.env, REDIS_URL: redisUrl, REDIS_PREFIX: prefix } });
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

  it("when a name is out of the admin API's bounds, then the CLI refuses it too, naming the field", () => {
    const refused = keys("create", "--name", "x".repeat(MAX_API_KEY_NAME_CHARS + 1));
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toBe(`keys: name must have at most ${MAX_API_KEY_NAME_CHARS} characters\n`);
    expect(keys("create", "--name", "x".repeat(MAX_API_KEY_NAME_CHARS)).code).toBe(0);
  });

  it("when Redis cannot be reached, then the error says why and hides the password in REDIS_URL", async () => {
    const port = await closedPort();
    const failed = keysOn(`redis://admin:s3cret@127.0.0.1:${port}`, "list");
    expect(failed).toMatchObject({ code: 1, stdout: "" });
    expect(failed.stderr).toBe(`keys: could not reach Redis at redis://admin:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`);
  });
});

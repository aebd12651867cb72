import { spawnSync } from "node:child_process";
import { MAX_API_KEY_NAME_CHARS } from "@chorus/contracts";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { closedPort } from "../../../test-support/ports.js";
import { startTestGateway } from "../../../test-support/gateway.js";
import { KEYS_SCRIPT } from "../../../test-support/local-service.js";
import { errorOf } from "../../../test-support/response-body.js";
import request from "supertest";
import { createWorkerRedis, redisKeys } from "@chorus/platform/redis";
import { UsageMeter } from "@chorus/platform/usage";
import { testLogger } from "../../../test-support/logger.js";

/** `npm run keys` as a user runs it, on the test Redis under a prefix of its own. */
const prefix = uniquePrefix("keys-cli");
afterAll(() => deleteKeysWithPrefix(TEST_REDIS_URL, prefix));

function keys(...args: string[]) {
  return keysOn(TEST_REDIS_URL, ...args);
}

/** `keys list`'s rows as [id, name, state]. */
function listed(): string[][] {
  return keys("list")
    .stdout.trim()
    .split("\n")
    .slice(1)
    .map((line) => line.split("\t"))
    .map((cells) => [cells[0] ?? "", cells[1] ?? "", cells[5] ?? ""]);
}

const idOf = (name: string) => listed().find(([, n, state]) => n === name && state === "active")?.[0] ?? "";
const stateOf = (name: string) =>
  listed()
    .filter(([, n]) => n === name)
    .map(([, , state]) => state);

/** Whether a secret authenticates on a real gateway reading the keys the CLI wrote. */
async function authenticates(secret: string): Promise<number> {
  const gw = await startTestGateway(prefix, {}, TEST_REDIS_URL);
  try {
    return (await request(gw.app).get("/api/voices").auth(secret, { type: "bearer" })).status;
  } finally {
    await gw.close({ keepKeys: true });
  }
}

function keysOn(redisUrl: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [KEYS_SCRIPT, ...args], {
    encoding: "utf8",
    timeout: 20_000,
    env: { ...process.env, REDIS_URL: redisUrl, REDIS_PREFIX: prefix },
  });
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
    expect(listed[0]).toBe("ID\tNAME\tSCOPES\tLIMITS\tCREATED\tSTATE\tEXPIRES\tLAST USED\tPRIORITY");
    expect(
      listed.slice(1).map((line) =>
        line
          .split("\t")
          .filter((_, i) => i === 1 || i === 5)
          .join(" "),
      ),
    ).toEqual(["demo revoked", "demo active"]);
  });

  it("when a key is created with --limits inflight and streams, then keys list shows them and a gateway holds the key to them", async () => {
    const secret = keys("create", "--name", "capped", "--limits", "text=50,inflight=1,streams=2").stdout.trim();
    const row = keys("list")
      .stdout.split("\n")
      .find((line) => line.split("\t")[1] === "capped");
    expect(JSON.parse(row?.split("\t")[3] ?? "null")).toEqual({ text: 50, inflight: 1, streams: 2 });
    const gw = await startTestGateway(prefix, {}, TEST_REDIS_URL);
    try {
      const submit = () =>
        request(gw.app)
          .post("/api/text/default")
          .auth(secret, { type: "bearer" })
          .send({ messages: [{ role: "You", content: "Hi", index: 0 }] });
      expect((await submit()).status).toBe(200);
      const refused = await submit();
      expect(refused.status).toBe(429);
      expect(errorOf(refused).message).toContain("max in flight 1");
    } finally {
      await gw.close({ keepKeys: true });
    }
  });

  it("when keys update changes a key's limits, then the same secret is held to them, and NAME=default drops one", async () => {
    const secret = keys("create", "--name", "updated", "--limits", "text=50").stdout.trim();
    const id = idOf("updated");
    const updated = keys("update", id, "--limits", "inflight=1,text=default", "--scopes", "text:default,tts");
    expect(updated.code).toBe(0);
    expect(updated.stderr).toContain(`updated ${id} (updated)`);
    const row = keys("list")
      .stdout.split("\n")
      .find((line) => line.startsWith(`${id}\t`));
    expect(row?.split("\t")[2]).toBe("text:default,tts");
    expect(JSON.parse(row?.split("\t")[3] ?? "null")).toEqual({ inflight: 1 });
    const gw = await startTestGateway(prefix, {}, TEST_REDIS_URL);
    try {
      const submit = () =>
        request(gw.app)
          .post("/api/text/default")
          .auth(secret, { type: "bearer" })
          .send({ messages: [{ role: "You", content: "Hi", index: 0 }] });
      const first = await submit();
      expect(first.status).toBe(200);
      expect(first.headers["x-ratelimit-limit"]).toBe(String(gw.config.RATE_LIMIT_TEXT));
      expect(errorOf(await submit()).message).toContain("max in flight 1");
    } finally {
      await gw.close({ keepKeys: true });
    }
  });

  it("when keys update has nothing to change, an unknown id or a bad limit, then it says so, exit 2, and changes nothing", () => {
    keys("create", "--name", "unchanged", "--limits", "text=5");
    const id = idOf("unchanged");
    const nothing = keys("update", id);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("update needs --scopes, --limits, --webhook-hosts, --expires or --priority");
    const unknown = keys("update", "key_0000000000000000", "--limits", "text=3");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no key with id");
    expect(keys("update", id, "--limits", "text=0").code).toBe(2);
    const row = keys("list")
      .stdout.split("\n")
      .find((line) => line.startsWith(`${id}\t`));
    expect(JSON.parse(row?.split("\t")[3] ?? "null")).toEqual({ text: 5 });
  });

  it("when a key is created with --priority and updated, then keys list shows its tier, and a bad tier is exit 2", () => {
    keys("create", "--name", "tiered", "--priority", "high");
    const id = idOf("tiered");
    const tierOf = () =>
      keys("list")
        .stdout.split("\n")
        .find((line) => line.startsWith(`${id}\t`))
        ?.split("\t")[8];
    expect(tierOf()).toBe("high");
    const updated = keys("update", id, "--priority", "low");
    expect(updated.code).toBe(0);
    expect(updated.stderr).toContain("priority low");
    expect(tierOf()).toBe("low");
    const bad = keys("update", id, "--priority", "urgent");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bad --priority 'urgent'; expected high, normal, low");
    expect(keys("create", "--name", "tiered-bad", "--priority", "top").code).toBe(2);
    expect(tierOf()).toBe("low");
  });

  it("when a key is created, then its webhook secret is shown once beside it, its hosts can be set, and rotate-webhook-secret prints a new one", async () => {
    const created = keys("create", "--name", "hooked", "--webhook-hosts", "hooks.a.example");
    expect(created.stdout).toMatch(/^ck_\S{43}\n$/);
    expect(created.stderr).toMatch(/^webhook signing secret of key_[0-9a-f]{16} \(shown this once\): whsec_\S{44}\n$/);
    const json = JSON.parse(keys("create", "--name", "hooked-json", "--json").stdout) as Record<string, string>;
    expect(Object.keys(json).sort()).toEqual(["id", "key", "webhookSecret"]);
    expect(json.webhookSecret).toMatch(/^whsec_/);
    const id = idOf("hooked");
    const updated = keys("update", id, "--webhook-hosts", "*.b.example,hooks.a.example");
    expect(updated.code).toBe(0);
    expect(updated.stderr).toContain("webhook hosts *.b.example,hooks.a.example");
    const rotated = keys("rotate-webhook-secret", id, "--overlap", "1h");
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/^whsec_\S{44}\n$/);
    expect(rotated.stderr).toContain("signs beside it until");
    expect(keys("rotate-webhook-secret", id, "--overlap", "soon").code).toBe(2);
    const gw = await startTestGateway(prefix, {}, TEST_REDIS_URL);
    try {
      const submit = (webhook: string) =>
        request(gw.app)
          .post("/api/text/default")
          .auth(created.stdout.trim(), { type: "bearer" })
          .send({ messages: [{ role: "You", content: "Hi", index: 0 }], webhook });
      expect((await submit("https://x.b.example/hook")).status).toBe(200);
      expect((await submit("https://tenant-c.example/hook")).status).toBe(400);
    } finally {
      await gw.close({ keepKeys: true });
    }
  });

  it("when a key is created with usage budgets and updated, then keys list shows them and a gateway refuses past them with 429 BUDGET_EXCEEDED", async () => {
    const secret = keys(
      "create",
      "--name",
      "budgeted",
      "--limits",
      "tokens_day=5,audio_seconds_month=60",
    ).stdout.trim();
    const id = idOf("budgeted");
    expect(keys("update", id, "--limits", "tokens_month=7,audio_seconds_month=default").code).toBe(0);
    const row = keys("list")
      .stdout.split("\n")
      .find((line) => line.split("\t")[1] === "budgeted");
    expect(JSON.parse(row?.split("\t")[3] ?? "null")).toEqual({ tokens_day: 5, tokens_month: 7 });
    const gw = await startTestGateway(prefix, {}, TEST_REDIS_URL);
    try {
      const refused = await request(gw.app)
        .post("/api/text/default")
        .auth(secret, { type: "bearer" })
        .send({ messages: [{ role: "You", content: "Hi", index: 0 }] });
      expect(refused.status).toBe(429);
      expect(errorOf(refused).code).toBe("BUDGET_EXCEEDED");
    } finally {
      await gw.close({ keepKeys: true });
    }
  });

  it("when a usage budget is 0 or negative, then create and update refuse it as a usage error naming the entry", () => {
    for (const args of [
      ["create", "--name", "zero-budget", "--limits", "tokens_day=0"],
      ["update", "key_0000000000000000", "--limits", "audio_seconds_day=-3"],
    ]) {
      const bad = keys(...args);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`bad --limits entry '${args.at(-1)}'`);
      expect(bad.stderr).toContain("tokens_day=N, tokens_month=N, audio_seconds_day=N, audio_seconds_month=N");
    }
  });

  it("when --limits names an unknown limit or a bad number, then it is refused naming every known one", () => {
    const bad = keys("create", "--name", "badcap", "--limits", "inflight=0");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("text=N, tts=N, status=N, inflight=N, streams=N");
  });

  it("when a key is revoked by --name, then its name can be given to a new key", () => {
    expect(keys("create", "--name", "temp").code).toBe(0);
    const revoked = keys("revoke", "--name", "temp");
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toMatch(/^revoked key_[0-9a-f]{16} \(temp\)\n$/);
    expect(stateOf("temp")).toEqual(["revoked"]);
    expect(keys("create", "--name", "temp").code).toBe(0);
  });

  it("when key B is named like key A's id, then revoke A's id revokes A only, and B still authenticates", async () => {
    expect(keys("create", "--name", "holder-a").code).toBe(0);
    const idOfA = idOf("holder-a");
    const secretOfB = keys("create", "--name", idOfA).stdout.trim();
    const revoked = keys("revoke", idOfA);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toBe(`revoked ${idOfA} (holder-a)\n`);
    expect(stateOf("holder-a")).toEqual(["revoked"]);
    expect(stateOf(idOfA)).toEqual(["active"]);
    expect(await authenticates(secretOfB)).toBe(200);
  });

  it("when a name is given as the id, then nothing is revoked and the error says to use --name", () => {
    expect(keys("create", "--name", "by-name-only").code).toBe(0);
    const refused = keys("revoke", "by-name-only");
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toBe('keys: no key with id "by-name-only" (to revoke by name: revoke --name NAME)\n');
    expect(stateOf("by-name-only")).toEqual(["active"]);
  });

  it("when revoke gets both an id and --name, or neither, then it prints the usage and revokes nothing", () => {
    expect(keys("create", "--name", "both-ways").code).toBe(0);
    for (const args of [["revoke", idOf("both-ways"), "--name", "both-ways"], ["revoke"]]) {
      const refused = keys(...args);
      expect(refused).toMatchObject({ code: 2, stdout: "" });
      expect(refused.stderr).toContain("revoke --name NAME");
    }
    expect(stateOf("both-ways")).toEqual(["active"]);
  });

  it("when a key already revoked is revoked again, by id or by name, then both say it was already revoked and exit 0", () => {
    expect(keys("create", "--name", "twice").code).toBe(0);
    const id = idOf("twice");
    expect(keys("revoke", id).code).toBe(0);

    expect(keys("revoke", id)).toEqual({ code: 0, stdout: "", stderr: `${id} (twice) was already revoked\n` });
    expect(keys("revoke", "--name", "twice")).toEqual({
      code: 0,
      stdout: "",
      stderr: `${id} (twice) was already revoked; no active key holds that name\n`,
    });
    expect(keys("revoke", "--name", "never-existed")).toMatchObject({
      code: 2,
      stderr: 'keys: no key named "never-existed" that is not revoked\n',
    });
  });

  it("when the command is unknown or an option misspelt, then it says what was wrong first, then the usage, exit 2", () => {
    const unknown = keys("craete", "--name", "x");
    expect(unknown).toMatchObject({ code: 2, stdout: "" });
    expect(unknown.stderr.startsWith("keys: unknown command 'craete'\n\nusage: npm run keys")).toBe(true);

    const misspelt = keys("create", "--nam", "x");
    expect(misspelt).toMatchObject({ code: 2, stdout: "" });
    expect(
      misspelt.stderr.startsWith("unknown option --nam (the options are listed below)\n\nusage: npm run keys"),
    ).toBe(true);
    expect(misspelt.stderr).not.toContain("positional");
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
    expect(failed.stderr).toBe(
      `keys: could not reach Redis at redis://admin:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
  });

  it("when keys usage is run, then it prints what the key's finished requests used by day or model; a bad range or id is exit 2", async () => {
    keys("create", "--name", "metered");
    const id = idOf("metered");
    const connection = createWorkerRedis(TEST_REDIS_URL);
    try {
      const meter = new UsageMeter(connection, redisKeys(prefix), testLogger("usage"));
      const at = Date.parse("2026-04-02T10:00:00.000Z");
      await meter.record({
        jobId: "j1",
        keyId: id,
        model: "default",
        end: "completed",
        at,
        completionTokens: 9,
        promptTokens: 21,
      });
      await meter.record({ jobId: "j2", keyId: id, model: "Witch", end: "cancelled", at });
    } finally {
      connection.disconnect();
    }
    const byDay = keys("usage", id, "--from", "2026-04-01", "--to", "2026-04-30");
    expect(byDay.code).toBe(0);
    expect(byDay.stdout.trim().split("\n")).toEqual([
      "DAY\tCOMPLETED\tERROR\tCANCELLED\tPROMPT\tCACHED\tCOMPLETION\tCHARS\tAUDIO S",
      "2026-04-02\t1\t0\t1\t21\t0\t9\t0\t0",
      "TOTAL\t1\t0\t1\t21\t0\t9\t0\t0",
    ]);
    const byModel = keys("usage", id, "--from", "2026-04-01", "--to", "2026-04-30", "--by", "model", "--json");
    const report = JSON.parse(byModel.stdout) as { buckets: { model: string }[] };
    expect(report.buckets.map((b) => b.model)).toEqual(["default", "Witch"]);
    const reversed = keys("usage", id, "--from", "2026-04-30", "--to", "2026-04-01");
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toContain("from must not be after to");
    expect(keys("usage", id, "--by", "week").code).toBe(2);
    expect(keys("usage", "key_0000000000000000").code).toBe(2);
    expect(keys("usage").code).toBe(2);
  });
});

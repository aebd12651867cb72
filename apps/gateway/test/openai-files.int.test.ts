import { FILE_LIMITS } from "@chorus/contracts";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI, { toFile } from "openai";
import request from "supertest";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";

/** OpenAI's Files API as the official openai client uses it, for a batch's input. */
let gw: TestGateway;
let server: Server;
let baseURL: string;
let key: string;
let openai: OpenAI;

beforeEach(async () => {
  gw = await startTestGateway(uniquePrefix("openai-files"));
  server = gw.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  key = await gw.createKey();
  openai = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 });
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  await gw.close();
});

const batchLine = (i: number) =>
  JSON.stringify({
    custom_id: `req-${i}`,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "default", messages: [{ role: "user", content: `Hello ${i}` }] },
  });
const jsonl = (count: number) => Array.from({ length: count }, (_, i) => batchLine(i)).join("\n") + "\n";
const upload = async (client: OpenAI, text: string, name = "batch.jsonl") =>
  client.files.create({ file: await toFile(Buffer.from(text), name), purpose: "batch" });

describe("the Files API (official openai client)", () => {
  it("when a batch file is uploaded, then it can be retrieved, listed, read back byte for byte and deleted", async () => {
    const text = jsonl(3);
    const before = Math.floor(Date.now() / 1000);
    const file = await upload(openai, text);
    expect(file).toMatchObject({
      object: "file",
      bytes: Buffer.byteLength(text),
      filename: "batch.jsonl",
      purpose: "batch",
    });
    expect(file.id).toMatch(/^file-/);
    expect(file.created_at).toBeGreaterThanOrEqual(before);
    expect(file.expires_at! - file.created_at).toBe(FILE_LIMITS.expiresAfterSeconds.max);

    expect(await openai.files.retrieve(file.id)).toEqual(file);
    expect(await (await openai.files.content(file.id)).text()).toBe(text);
    const listed = [];
    for await (const f of openai.files.list()) listed.push(f.id);
    expect(listed).toEqual([file.id]);

    expect(await openai.files.delete(file.id)).toEqual({ id: file.id, object: "file", deleted: true });
    await expect(openai.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
    await expect(openai.files.content(file.id)).rejects.toMatchObject({ status: 404 });
  });

  it("when files are listed with limit, order and after, then pages follow creation order", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await upload(openai, jsonl(1), `f${i}.jsonl`)).id);
    const first = await openai.files.list({ limit: 2, order: "asc" });
    expect(first.data.map((f) => f.id)).toEqual(ids.slice(0, 2));
    expect(first.has_more).toBe(true);
    const next = await openai.files.list({ limit: 2, order: "asc", after: ids[1] });
    expect(next.data.map((f) => f.id)).toEqual([ids[2]]);
    expect(next.has_more).toBe(false);
    expect((await openai.files.list({ order: "desc" })).data.map((f) => f.id)).toEqual([...ids].reverse());
  });

  it("when another key asks for a file, then it does not exist for that key", async () => {
    const file = await upload(openai, jsonl(1));
    const other = new OpenAI({ baseURL, apiKey: await gw.createKey(), maxRetries: 0 });
    await expect(other.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.files.content(file.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.files.delete(file.id)).rejects.toMatchObject({ status: 404 });
    expect((await other.files.list()).data).toEqual([]);
    expect(await openai.files.retrieve(file.id)).toMatchObject({ id: file.id });
  });

  it("when expires_after is given, then the file expires then; out of bounds it is refused naming the field", async () => {
    const file = await openai.files.create({
      file: await toFile(Buffer.from(jsonl(1)), "b.jsonl"),
      purpose: "batch",
      expires_after: { anchor: "created_at", seconds: 3600 },
    });
    expect(file.expires_at! - file.created_at).toBe(3600);
    const ttl = await gw.deps.redis.pttl(gw.deps.keys.fileContent((await gw.deps.apiKeys.list())[0]!.id, file.id));
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    await expect(
      openai.files.create({
        file: await toFile(Buffer.from(jsonl(1)), "b.jsonl"),
        purpose: "batch",
        expires_after: { anchor: "created_at", seconds: 60 },
      }),
    ).rejects.toMatchObject({ status: 400, param: "expires_after.seconds" });
  });

  it("when the upload breaks a bound, then a 4xx names what is wrong and nothing is stored", async () => {
    await expect(
      openai.files.create({ file: await toFile(Buffer.from(jsonl(1)), "b.jsonl"), purpose: "fine-tune" }),
    ).rejects.toMatchObject({ status: 400, param: "purpose" });
    await expect(upload(openai, "\xff\xfe not text")).resolves.toBeDefined(); // a JS string is UTF-8 on the wire
    await expect(
      openai.files.create({ file: await toFile(Buffer.from([0xff, 0xfe, 0x00]), "b.jsonl"), purpose: "batch" }),
    ).rejects.toMatchObject({ status: 400, param: "file" });
    await expect(
      openai.files.create({
        file: await toFile(Buffer.alloc(FILE_LIMITS.maxBytes + 1, 0x20), "big.jsonl"),
        purpose: "batch",
      }),
    ).rejects.toMatchObject({ status: 413 });
    const lines = "{}\n".repeat(FILE_LIMITS.maxLines + 1);
    await expect(upload(openai, lines)).rejects.toMatchObject({ status: 400, param: "file" });
    const noFile = await request(gw.app).post("/v1/files").auth(key, { type: "bearer" }).field("purpose", "batch");
    expect(noFile.status).toBe(400);
    expect((noFile.body as { error: { param: string } }).error.param).toBe("file");
    const json = await request(gw.app).post("/v1/files").auth(key, { type: "bearer" }).send({ purpose: "batch" });
    expect(json.status).toBe(400);
    const cut = await request(gw.app)
      .post("/v1/files")
      .auth(key, { type: "bearer" })
      .set("Content-Type", "multipart/form-data; boundary=x")
      .send('--x\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n{}');
    expect(cut.status).toBe(400);
    expect((await openai.files.list()).data).toHaveLength(1);
  }, 60_000);

  it("when a key holds its cap of files, then another upload is refused until one is deleted", async () => {
    const ids = await Promise.all(
      Array.from({ length: FILE_LIMITS.maxFilesPerKey }, () => upload(openai, jsonl(1)).then((f) => f.id)),
    );
    await expect(upload(openai, jsonl(1))).rejects.toMatchObject({ status: 409, param: "file" });
    await openai.files.delete(ids[0]!);
    await expect(upload(openai, jsonl(1))).resolves.toMatchObject({ object: "file" });
  }, 60_000);

  it("when the key is missing, or the key's status budget is spent, then 401 and 429 answer as on every path", async () => {
    const anonymous = new OpenAI({ baseURL, apiKey: "not-a-key", maxRetries: 0 });
    await expect(anonymous.files.list()).rejects.toMatchObject({ status: 401 });
    const limited = await startTestGateway(uniquePrefix("openai-files-budget"), { RATE_LIMIT_STATUS: "2" });
    try {
      const own = await limited.createKey();
      const list = () => request(limited.app).get("/v1/files").auth(own, { type: "bearer" });
      expect((await list()).headers["x-ratelimit-limit"]).toBe("2");
      expect((await list()).status).toBe(200);
      const refused = await list();
      expect(refused.status).toBe(429);
      expect(refused.headers["retry-after"]).toBeDefined();
    } finally {
      await limited.close();
    }
  });
});

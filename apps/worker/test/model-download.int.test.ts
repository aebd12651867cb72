import { createHash } from "node:crypto";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative as relativePath } from "node:path";
import { ModelUnavailableError, resolveModel } from "../src/engines/llm/model-resolver.js";
import { describeWithModel, FIXTURE_MODEL } from "../../../test-support/fixtures.js";
import { closedPort } from "../../../test-support/ports.js";

/**
 * A stand-in for the Hugging Face file endpoint on 127.0.0.1, serving the fixture model at
 * /{user}/{repo}/resolve/{revision}/{file}, so the real download path of node-llama-cpp runs offline.
 */
function startModelHost(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const size = statSync(FIXTURE_MODEL).size;
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (!req.url?.includes("/fixture/tiny-models/resolve/")) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": size, "Accept-Ranges": "none" });
    if (req.method === "HEAD") res.end();
    else createReadStream(FIXTURE_MODEL).pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests }),
    ),
  );
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("a model whose host cannot be reached", () => {
  it("when it is not cached, then resolving fails at once, naming the host and what to set", async () => {
    const empty = await mkdtemp(join(tmpdir(), "chorus-models-"));
    const endpoint = `http://127.0.0.1:${await closedPort()}/`;
    try {
      const failing = resolveModel({
        model: "hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf",
        directory: empty,
        huggingFaceEndpoint: endpoint,
        showProgress: false,
      });
      await expect(failing).rejects.toThrow(ModelUnavailableError);
      await expect(failing).rejects.toThrow(`its host ${endpoint} cannot be reached (ECONNREFUSED)`);
      await expect(failing).rejects.toThrow(/Set LLM_MODEL to the path of a local \.gguf file/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describeWithModel("downloading a model by hf: URI", () => {
  let host: Awaited<ReturnType<typeof startModelHost>>;
  let cache: string;
  beforeAll(async () => {
    host = await startModelHost();
    cache = await mkdtemp(join(tmpdir(), "chorus-models-"));
  });
  afterAll(async () => {
    host.server.close();
    await rm(cache, { recursive: true, force: true });
  });

  it("when the model is not cached, then it is downloaded once into the cache with progress, and reused after", async () => {
    const progress: number[] = [];
    const options = {
      model: "hf:fixture/tiny-models/stories260K-chatml.gguf",
      directory: cache,
      huggingFaceEndpoint: host.url,
      showProgress: false,
    };
    const path = await resolveModel({ ...options, onProgress: (done) => progress.push(done) });
    expect(path.startsWith(cache)).toBe(true);
    expect(sha256(path)).toBe(sha256(FIXTURE_MODEL));
    expect(progress.at(-1)).toBe(statSync(FIXTURE_MODEL).size);
    const gets = host.requests.filter((r) => r.startsWith("GET")).length;

    expect(await resolveModel(options)).toBe(path);
    expect(host.requests.filter((r) => r.startsWith("GET")).length).toBe(gets);
  });

  it("when the model is cached, then it is used without asking its host, even one that cannot be reached", async () => {
    const options = { model: "hf:fixture/tiny-models/stories260K-chatml.gguf", directory: cache, showProgress: false };
    const path = await resolveModel({ ...options, huggingFaceEndpoint: host.url });
    const requests = host.requests.length;
    expect(await resolveModel({ ...options, huggingFaceEndpoint: `http://127.0.0.1:${await closedPort()}/` })).toBe(
      path,
    );
    expect(host.requests.length).toBe(requests);
  });

  it("when the download cannot happen, then the error says what to set", async () => {
    const failing = resolveModel({
      model: "hf:nobody/missing/model.gguf",
      directory: cache,
      huggingFaceEndpoint: host.url,
      showProgress: false,
    });
    await expect(failing).rejects.toThrow(ModelUnavailableError);
    await expect(failing).rejects.toThrow(/Set LLM_MODEL to the path of a local \.gguf file/);
  });

  it("when LLM_MODEL is a relative path, then it is read from the working directory, not the cache", async () => {
    const relative = relativePath(process.cwd(), FIXTURE_MODEL);
    expect(relative.startsWith("..") || !relative.startsWith("/")).toBe(true);
    expect(await resolveModel({ model: relative, directory: cache, showProgress: false })).toBe(FIXTURE_MODEL);
  });

  it("when LLM_MODEL is a path that does not exist, then the error names it", async () => {
    await expect(
      resolveModel({ model: "/nonexistent/model.gguf", directory: cache, showProgress: false }),
    ).rejects.toThrow(/\/nonexistent\/model\.gguf/);
  });
});

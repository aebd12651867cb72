import { startChild, type RunningChild } from "@chorus/local-runtime";
import { FIXTURE_MODEL } from "./fixtures.js";
import { closedPort } from "./ports.js";
import { waitFor } from "./wait-for.js";
import { LLAMA_SERVER_BINARY, TEST_LLAMA_THREADS } from "./worker.js";

/** A llama-server of its own, on the fixture model: an OpenAI-compatible upstream, as an operator would run one. */
export interface LlamaUpstream {
  /** `http://127.0.0.1:<port>` (its API root is `/v1`). */
  url: string;
  child: RunningChild;
  stop(): Promise<void>;
}

/** Starts the worker's llama-server build on the fixture model (one slot) and waits until it answers /health. */
export async function startLlamaUpstream(contextTokens = 1024): Promise<LlamaUpstream> {
  if (!LLAMA_SERVER_BINARY) throw new Error("an upstream llama-server needs the build: run `npm run llama:build`");
  const port = await closedPort();
  const args = ["-m", FIXTURE_MODEL, "-t", String(TEST_LLAMA_THREADS), "-np", "1", "-c", String(contextTokens)];
  const child = startChild("llama-upstream", LLAMA_SERVER_BINARY, {
    args: [...args, "--host", "127.0.0.1", "--port", String(port)],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor("the upstream llama-server to be healthy", async () => (await fetch(`${url}/health`)).ok, {
      timeoutMs: 60_000,
      stopWhen: () => (child.process.exitCode !== null ? `it exited:\n${child.output()}` : undefined),
    });
  } catch (error) {
    await child.stop(1000);
    throw error;
  }
  return { url, child, stop: () => child.stop(5000) };
}

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WorkerDeps } from "@chorus/worker";
import type { LlmEngine } from "@chorus/worker/llm";
import { startTestGateway, type TestGateway } from "./gateway.js";
import { loadFixtureEngine, startTestWorker, type TestWorker } from "./worker.js";

export interface LiveStack {
  gw: TestGateway;
  worker: TestWorker;
  /** `http://127.0.0.1:<port>`: the gateway listening for real HTTP clients (SDK, curl, Python). */
  baseUrl: string;
  close(): Promise<void>;
}

/** The real gateway on a loopback port and the real worker on the fixture model, under `prefix`. */
export async function startLiveStack(
  prefix: string,
  gatewayEnv: Record<string, string> = {},
  workerOverrides: Partial<WorkerDeps> = {},
): Promise<LiveStack> {
  const gw = await startTestGateway(prefix, gatewayEnv);
  const server: Server = gw.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const engine: LlmEngine = await loadFixtureEngine();
  const worker = await startTestWorker(prefix, engine, workerOverrides);
  return {
    gw,
    worker,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await worker.close();
      await engine.close();
      await new Promise((resolve) => server.close(resolve));
      await gw.close();
    },
  };
}

import { APP_NODE_FLAGS } from "@chorus/local-runtime";
import { STATUS_STEPS } from "../baselines/status-steps.js";
import { benchScript } from "../paths.js";
import { GATEWAY_PREFIX, startHttpServer, type BenchStack, type HttpServerProcess } from "./bench-stack.js";

/**
 * One process per status step (baselines/status-steps.ts), on the gateway's prefix (so the bench's
 * key and record are theirs too) and on the gateway's runtime, started one after another.
 */
export async function startStatusStepServers(stack: BenchStack): Promise<HttpServerProcess[]> {
  const servers: HttpServerProcess[] = [];
  try {
    for (const step of STATUS_STEPS) {
      const env = { ...stack.baseEnv, REDIS_PREFIX: GATEWAY_PREFIX, STATUS_STEP: step };
      servers.push(
        await startHttpServer(
          `status-step-${step}`,
          benchScript("baselines/status-steps.server.js"),
          env,
          [...APP_NODE_FLAGS.gateway],
          true,
        ),
      );
    }
    return servers;
  } catch (error) {
    await Promise.all(servers.map((server) => server.child.stop(2000)));
    throw error;
  }
}

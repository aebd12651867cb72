import { createLogger, loadOrExit, onShutdownSignal, redactRedisUrl } from "@chorus/platform";
import { loadWorkerConfig } from "./config.js";
import { createWorkerDeps } from "./dependencies.js";
import { listenForCancellations } from "./cancellation-listener.js";
import { WorkerPresence } from "./worker-presence.js";
import { createWorkers } from "./worker.js";

const config = loadOrExit(() => loadWorkerConfig(process.env));
const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, service: "worker" });

try {
  const deps = await createWorkerDeps(config, logger);
  const workers = createWorkers(deps);
  const subscriber = deps.connection.duplicate();
  await listenForCancellations(subscriber, deps.keys.cancelChannel(), workers, logger);
  const presence = new WorkerPresence(deps.connection, deps.keys.workerSlots(), config.WORKER_CONCURRENCY);
  await presence.start();
  logger.info("worker ready", { redis: redactRedisUrl(config.REDIS_URL), concurrency: config.WORKER_CONCURRENCY });
  onShutdownSignal(logger, 30_000, async () => {
    // Stop taking jobs and let running ones finish; what cannot finish in time is retried elsewhere.
    subscriber.disconnect();
    await presence.stop();
    await Promise.all(workers.map((w) => w.close()));
    await deps.close();
  });
} catch (error) {
  logger.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

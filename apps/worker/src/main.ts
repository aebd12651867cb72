import { createLogger } from "@chorus/platform/logger";
import { createMetrics, readQueueDepths } from "@chorus/platform/metrics";
import { loadOrExit, onShutdownSignal } from "@chorus/platform/process";
import { createSpeechQueue, createTextQueue } from "@chorus/platform/queues";
import { requireCurrentKeyLayout, describeRedisTarget, redisTargetOf } from "@chorus/platform/redis";
import { createWebhookQueue } from "@chorus/platform/webhooks";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { environmentUsage, parseCommandLine, stopWhenLauncherExits } from "@chorus/platform/process";
import { loadWorkerConfig, WORKER_ENV } from "./config.js";
import { createWorkerDeps } from "./dependencies.js";
import { createHealthServer } from "./health-server.js";
import { instrumentWorkers } from "./worker-metrics.js";
import { listenForCancellations } from "./cancellation-listener.js";
import { WorkerPresence } from "./worker-presence.js";
import { LostJobSweeper } from "./records/lost-job.sweeper.js";
import { QueueDeadlineSweeper } from "./records/queue-deadline.sweeper.js";
import { QUEUES } from "@chorus/contracts";
import { createWorkers } from "./worker.js";
import { createCacheRouting } from "./routing/create-cache-routing.js";
import { describeMemoryBudget, memoryBudget } from "./memory-budget.js";

parseCommandLine(
  `usage: npm run worker   (node apps/worker/dist/main.js)\n\nThe text and speech worker. It takes no options; it is configured by the environment:\n${environmentUsage(WORKER_ENV)}`,
  (args) => parseArgs({ args, options: {} }),
);
stopWhenLauncherExits();
const config = loadOrExit(() => loadWorkerConfig(process.env));
const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, service: "worker" });

try {
  const deps = await createWorkerDeps(config, logger);
  // Keys of an earlier release are moved by `npm run migrate`, before this release takes a job.
  await requireCurrentKeyLayout(deps.connection, config.REDIS_PREFIX);
  // Queues only to count jobs for queue_depth (a Worker cannot); they share the worker connection.
  const depthQueues = [
    createTextQueue(deps.connection, deps.keys),
    ...(deps.speech ? [createSpeechQueue(deps.connection, deps.keys)] : []),
    // Deliveries waiting for their next attempt show as `delayed`: a receiver that is down piles up there.
    createWebhookQueue(deps.connection, deps.keys),
  ];
  const metrics = createMetrics("worker", { queueDepth: readQueueDepths(depthQueues) });
  const workerId = randomUUID();
  const routing = createCacheRouting(
    {
      workerId,
      slots: config.WORKER_CONCURRENCY,
      maxWaitMs: config.ROUTE_MAX_WAIT_MS,
      prefixTtlSeconds: config.ROUTE_PREFIX_TTL_SECONDS,
      jobTimeLimitMs: config.JOB_TIME_LIMIT_MS,
    },
    { ...deps, recordRouting: (decision) => metrics.recordRouting(decision) },
  );
  const workers = createWorkers({ ...deps, routing });
  instrumentWorkers(workers, metrics);
  deps.meter.onCounted = (job) => metrics.recordUsage(job);
  const health = createHealthServer({
    host: config.WORKER_HTTP_HOST,
    port: config.WORKER_HTTP_PORT,
    freePortWhenTaken: process.env.WORKER_HTTP_PORT === undefined,
    connection: deps.connection,
    workers,
    metrics,
    metricsToken: config.METRICS_TOKEN,
    instanceId: config.INSTANCE_ID,
    logger,
  });
  await health.start();
  const subscriber = deps.connection.duplicate();
  await listenForCancellations(subscriber, deps.keys.cancelChannel(), workers, logger);
  const presence = new WorkerPresence(deps.connection, deps.keys.workerSlots(), config.WORKER_CONCURRENCY, workerId);
  await presence.start();
  await routing.start();
  const sweeper = new LostJobSweeper({ ...deps, onLost: () => metrics.recordJob(QUEUES.text, "lost") });
  sweeper.start();
  const [textQueue] = depthQueues as [ReturnType<typeof createTextQueue>];
  const deadlines = new QueueDeadlineSweeper({
    ...deps,
    removeJob: (requestId) => textQueue.remove(requestId),
    onExpired: () => metrics.recordJob(QUEUES.text, "queue_timeout"),
  });
  deadlines.start();
  logger.info("worker ready", {
    redis: describeRedisTarget(redisTargetOf(config)),
    prefix: config.REDIS_PREFIX,
    concurrency: config.WORKER_CONCURRENCY,
    workerId,
    // What LLM_CACHE_RAM_MB's default follows (a quarter of it, at most 8192 MiB).
    memory: describeMemoryBudget(memoryBudget()),
    promptCacheMiB: config.LLM_CACHE_RAM_MB,
    cacheRouting:
      config.ROUTE_MAX_WAIT_MS > 0
        ? `on (waits at most ${config.ROUTE_MAX_WAIT_MS} ms for the preferred worker)`
        : "hands nothing over (ROUTE_MAX_WAIT_MS=0); honours the claims of jobs others hand",
  });
  onShutdownSignal(logger, 30_000, async () => {
    // Stop taking jobs and let running ones finish; what cannot finish in time is retried elsewhere.
    subscriber.disconnect();
    sweeper.stop();
    deadlines.stop();
    await presence.stop();
    await Promise.all(workers.map((w) => w.close()));
    // Alive until the running jobs are done: a lapsed heartbeat would have their routed jobs taken
    // over and run twice. What is handed here meanwhile waits for a free worker (ROUTE_MAX_WAIT_MS).
    await routing.stop();
    await health.close();
    await Promise.all(depthQueues.map((q) => q.close()));
    await deps.close();
  });
} catch (error) {
  logger.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

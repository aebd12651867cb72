import type { Logger } from "../logger/logger.js";

/**
 * On SIGTERM/SIGINT runs `stop` once (stop intake, finish or hand back work, close connections)
 * and exits; if that takes longer than `timeoutMs`, exits anyway so an orchestrator is never stuck.
 */
export function onShutdownSignal(logger: Logger, timeoutMs: number, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    const timer = setTimeout(() => {
      logger.error("shutdown timed out; exiting", { timeoutMs });
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error("shutdown failed", { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handle);
  process.on("SIGINT", handle);
}

/** Loads configuration or exits with the message naming every bad setting (no stack trace). */
export function loadOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
}

import { createLogger, type Logger } from "@chorus/platform/logger";

/** Tests keep their output clean; set TEST_LOGS=1 to see the service's logs. */
export function testLogger(service: string): Logger {
  const logger = createLogger({ level: "debug", format: "pretty", service });
  logger.silent = process.env.TEST_LOGS !== "1";
  return logger;
}

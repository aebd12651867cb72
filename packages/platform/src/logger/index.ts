export { createLogger, type Logger, type LoggerOptions } from "./logger.js";

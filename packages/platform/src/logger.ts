import winston from "winston";

export type Logger = winston.Logger;

export interface LoggerOptions {
  level: string;
  format: "json" | "pretty";
  service: string;
}

/**
 * JSON lines for machines, colourised lines for people. Callers attach requestId, jobId and keyId
 * with `logger.child(...)`; API keys and message contents are never passed to the logger.
 */
export function createLogger({ level, format, service }: LoggerOptions): Logger {
  const { combine, timestamp, json, colorize, printf } = winston.format;
  const pretty = printf(({ level: lvl, message, timestamp: ts, service: svc, ...meta }) => {
    const extra = Object.keys(meta).length > 0 ? ` ${JSON.stringify(meta)}` : "";
    return `${String(ts)} ${String(svc)} ${lvl}: ${String(message)}${extra}`;
  });
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: format === "json" ? combine(timestamp(), json()) : combine(timestamp(), colorize(), pretty),
    transports: [new winston.transports.Console({ stderrLevels: ["error", "warn"] })],
  });
}

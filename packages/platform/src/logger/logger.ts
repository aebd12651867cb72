import winston from "winston";

export type Logger = winston.Logger;

export interface LoggerOptions {
  level: string;
  format: "json" | "pretty";
  service: string;
  /** Colour the pretty format's levels; by default only when both output streams are terminals. */
  colour?: boolean;
}

/** Both streams a logger writes to are terminals: a file or a pipe gets no colour codes. */
export const writesToTerminal = (): boolean => process.stdout.isTTY === true && process.stderr.isTTY === true;

/** One readable line per entry: time, service, level, message, then the rest as JSON. */
export function prettyFormat(colour: boolean): winston.Logform.Format {
  const { combine, timestamp, colorize, printf } = winston.format;
  const line = printf(({ level: lvl, message, timestamp: ts, service: svc, ...meta }) => {
    const extra = Object.keys(meta).length > 0 ? ` ${JSON.stringify(meta)}` : "";
    return `${String(ts)} ${String(svc)} ${lvl}: ${String(message)}${extra}`;
  });
  return colour ? combine(timestamp(), colorize(), line) : combine(timestamp(), line);
}

/**
 * JSON lines for machines, readable lines for people. Callers attach requestId, jobId and keyId
 * with `logger.child(...)`; API keys and message contents are never passed to the logger.
 */
export function createLogger({ level, format, service, colour = writesToTerminal() }: LoggerOptions): Logger {
  const { combine, timestamp, json } = winston.format;
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: format === "json" ? combine(timestamp(), json()) : prettyFormat(colour),
    transports: [new winston.transports.Console({ stderrLevels: ["error", "warn"] })],
  });
}

// The service's logs: one JSON object per line (pino), so no logged value can start a line of its
// own, and a log pipeline reads fields rather than parsing text. Never bodies, keys or e-mails.
import { pino, stdTimeFunctions, type DestinationStream, type Logger } from "pino";

export type { Logger };

export interface LoggerOptions {
  level?: string;
  /** Where lines go; standard output by default. */
  destination?: DestinationStream;
}

export function createLogger({ level = "info", destination }: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { service: "paygate" },
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    // Belt and braces: nothing logs headers, but if a header object ever reaches a line, no key does.
    redact: { paths: ["authorization", "*.authorization", "headers.authorization", "*.headers.authorization"], censor: "[redacted]" },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** The plain-text loggers of the jobs and the rails, writing into the structured log; a line may ask for `warn` (a failing node). */
export function lineLogger(logger: Logger, level: "info" | "warn" | "error" = "info"): (line: string, lineLevel?: "warn") => void {
  return (line, lineLevel) => logger[lineLevel ?? level](line);
}

// The service: configuration in, an HTTP server on a migrated database out.
import { ConfigError, loadConfig } from "./config.ts";
import type { AddressInfo } from "node:net";
import { createApp } from "./http/app.ts";
import { listeningLine } from "./http/listening.ts";
import { createLogger, lineLogger } from "./logging.ts";
import { startRuntime } from "./runtime.ts";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  const log = lineLogger(logger);
  const runtime = await startRuntime(config, { log });
  const { app, stop: stopApp } = await createApp({
    gateway: runtime.gateway,
    readiness: runtime.database.readiness,
    logger,
    logRequests: config.logRequests,
    graphql: config.graphql,
  });
  const server = app.listen(config.port, config.host, () => {
    const where = config.database.kind === "postgres" ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite in ${config.database.dataDir}`;
    log(listeningLine(server.address() as AddressInfo));
    log(`database: ${where}`);
    const jobs = [
      ["webhook delivery", config.webhooks.dispatcher, "PAYGATE_WEBHOOK_DISPATCHER"],
      ["checkout expiry", config.lifecycle.expiryScheduler, "PAYGATE_EXPIRY_SCHEDULER"],
      ["payment watcher", config.watch.enabled, "PAYGATE_PAYMENT_WATCHER"],
    ] as const;
    const off = jobs.filter(([, on]) => !on);
    log(`background jobs: ${jobs.filter(([, on]) => on).map(([name]) => name).join(", ") || "none"}`);
    if (off.length > 0) log(`off (${off.map(([, , v]) => `${v}=false`).join(", ")}): run \`paygate worker\` for them`);
  });
  runtime.startBackgroundJobs({ webhooks: config.webhooks.dispatcher, expiry: config.lifecycle.expiryScheduler, watcher: config.watch.enabled });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: finishing requests in flight, then stopping`);
    server.close(() => {
      Promise.all([stopApp(), runtime.close()]).then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || (error instanceof Error && error.name === "EmbeddedDatabaseBusyError")) {
    console.error(error.message);
  } else {
    console.error("paygate failed to start:", error);
  }
  process.exit(1);
});

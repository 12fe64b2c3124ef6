// The service: configuration in, an HTTP server on a migrated database out; out again, in order, on
// SIGTERM or SIGINT (docs/operations.md).
import { loadConfig, type Config } from "./config.ts";
import { ConfigError } from "./env.ts";
import { per, type RateLimit } from "./core/rate-limits.ts";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Server as NetServer, type AddressInfo } from "node:net";
import { createConfiguredApp } from "./app.ts";
import { serveCliInService } from "./cli/in-service.ts";
import { CONNECTIONS_CHECKING_INTERVAL_MS } from "./edge/connection-limits.ts";
import { cannotListenLine, listeningLine } from "./http/listening.ts";
import { createLogger, lineLogger } from "./logging.ts";
import { PaygateMetrics } from "./observability/metrics.ts";
import { startRuntime } from "./runtime.ts";

/** How long a stop may take (requests in flight, background jobs, the database) before the process exits 1 anyway. */
const STOP_DEADLINE_MS = 10_000;
/**
 * How long connections without a request under way are left open once stopping: a request already
 * on its way over one (or arrived while the event loop was busy) is still read and answered, with
 * `Connection: close`. Then the idle ones are closed, so that no keep-alive client holds the process
 * open. (Go's http.Server.Shutdown gives new connections such a grace too.)
 */
const IDLE_GRACE_MS = 1_000;
const SIGNALS = ["SIGTERM", "SIGINT"] as const;
type Signal = (typeof SIGNALS)[number];
/**
 * A signal this soon after the first is the same one, relayed: a terminal's Ctrl-C (and a SIGTERM
 * to the process group) reaches npm, tsx and the service alike, and npm and tsx pass theirs on, so
 * one Ctrl-C arrives two or three times within about 100 ms. Only a signal sent later means "now".
 */
const RELAYED_SIGNAL_MS = 1_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  const log = lineLogger(logger);

  // Signals from the start: one while the database opens and migrates lets the start finish (a
  // migration or PGlite's first initialisation is not cut short) and stops right after; a second one
  // exits at once.
  let stop: ((signal: Signal) => void) | null = null;
  let signalledDuringStart: Signal | null = null;
  let firstSignalAt: number | null = null;
  const onSignal = (signal: Signal) => {
    const now = Date.now();
    if (firstSignalAt !== null && now - firstSignalAt < RELAYED_SIGNAL_MS) return;
    firstSignalAt ??= now;
    if (stop) return stop(signal);
    if (signalledDuringStart) {
      log(`${signal} again while starting: exiting now`);
      process.exit(1);
    }
    signalledDuringStart = signal;
    log(`${signal} while starting: stopping once started`);
  };
  for (const signal of SIGNALS) process.on(signal, () => onSignal(signal));

  const metrics = config.metrics ? new PaygateMetrics() : undefined;
  const runtime = await startRuntime(config, { log, metrics });
  const { app, stop: stopApp, serve, closeSubscriptions } = await createConfiguredApp(config, runtime, { logger, metrics });

  // Requests under way. Once stopping, each response says `Connection: close` (a keep-alive client
  // then sends nothing more on that connection, and Node closes it after the response); after the
  // grace, every connection left idle is closed.
  let stopping = false;
  let closingIdle = false;
  const inFlight = new Set<ServerResponse>();
  const server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS }, app);
  // A failed listen says what to change rather than crash on it.
  server.once("error", (error: Error) => {
    log(cannotListenLine(error, config.host, config.port));
    process.exit(1);
  });
  server.listen(config.port, config.host, () => {
    const where = config.database.kind === "postgres" ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite in ${config.database.dataDir}`;
    log(listeningLine(server.address() as AddressInfo));
    log(`database: ${where}`);
    log(rateLimitLine(config));
    const jobs = [
      ["webhook delivery", config.webhooks.dispatcher, "PAYGATE_WEBHOOK_DISPATCHER"],
      ["checkout expiry", config.lifecycle.expiryScheduler, "PAYGATE_EXPIRY_SCHEDULER"],
      ["payment watcher", config.watch.enabled, "PAYGATE_PAYMENT_WATCHER"],
    ] as const;
    const off = jobs.filter(([, on]) => !on);
    log(
      `background jobs: ${
        jobs
          .filter(([, on]) => on)
          .map(([name]) => name)
          .join(", ") || "none"
      }`,
    );
    if (off.length > 0) log(`off (${off.map(([, , v]) => `${v}=false`).join(", ")}): run \`paygate worker\` for them`);
    stop = stopService;
    if (signalledDuringStart) stopService(signalledDuringStart);
  });
  serve(server); // the socket guards, and GraphQL subscriptions on the same port, path /graphql
  server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
    if (stopping) res.setHeader("Connection", "close");
    inFlight.add(res);
    res.once("close", () => {
      inFlight.delete(res);
      if (closingIdle) server.closeIdleConnections();
    });
  });
  runtime.startBackgroundJobs({
    webhooks: config.webhooks.dispatcher,
    expiry: config.lifecycle.expiryScheduler,
    watcher: config.watch.enabled,
    email: config.email.sender,
  });
  // On the embedded database the CLI cannot open PGlite beside the service: it hands its commands to it.
  const cliServer = serveCliInService(runtime, config, log);

  function stopService(signal: Signal): void {
    if (stopping) {
      log(`${signal} again: exiting now, ${inFlight.size} request(s) unfinished`);
      process.exit(1);
    }
    stopping = true;
    const started = Date.now();
    log(`${signal}: stopping; no new connections, ${inFlight.size} request(s) in flight to finish, background jobs stopping`);
    setTimeout(() => {
      logger.error(`not stopped ${STOP_DEADLINE_MS / 1000} s after ${signal} (${inFlight.size} request(s) unfinished): exiting`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");

    // Subscriptions never end by themselves: WebSockets are closed (1001) and event streams ended
    // now, so the server can close; their clients reconnect, to another instance if there is one.
    const subscriptionsClosed = closeSubscriptions().then(() => log("subscriptions closed (WebSockets and event streams)"));
    // net.Server's close rather than http.Server's, which would also close every idle connection at
    // once: among them connections whose first request has arrived but is not read yet.
    const requestsDone = new Promise<void>((resolve, reject) => {
      NetServer.prototype.close.call(server, (error?: Error) => (error ? reject(error) : resolve()));
    });
    setTimeout(() => {
      // After the poll phase: what has arrived meanwhile is read (and so under way) first.
      setImmediate(() => {
        closingIdle = true;
        server.closeIdleConnections();
        log(`idle connections closed (${IDLE_GRACE_MS} ms after ${signal}); ${inFlight.size} request(s) in flight`);
      });
    }, IDLE_GRACE_MS).unref();

    // The background jobs take nothing new from now on and finish what they hold while the requests
    // finish; the GraphQL server and the database close after both.
    const jobsStopped = Promise.all([runtime.webhooks.stop(), runtime.expiry.stop(), runtime.watcher.stop()]);
    const cliClosed = cliServer.then((cli) => new Promise<void>((resolve) => (cli ? cli.close(() => resolve()) : resolve())));
    requestsDone
      .then(() => log(`HTTP server closed: every request answered (${Date.now() - started} ms)`))
      .then(() => Promise.all([jobsStopped, subscriptionsClosed, cliClosed]))
      .then(() => stopApp())
      .then(() => runtime.close())
      .then(
        () => {
          log(`stopped in ${Date.now() - started} ms`);
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, "stopping failed");
          process.exit(1);
        },
      );
  }
}

/** What is limited, and whose address the per-address limits count (docs/rest-api.md, Rate limits). */
function rateLimitLine({ rateLimits: { live, test, authFailures }, trustProxy }: Config): string {
  const rule = (r: RateLimit | null) => (r ? `${r.limit} ${per(r.windowMs)}` : "off");
  const client =
    trustProxy === false
      ? "client address: the connection's peer (PAYGATE_TRUST_PROXY off; behind a proxy, set it)"
      : `client address: from X-Forwarded-For through ${typeof trustProxy === "number" ? `${trustProxy} trusted prox${trustProxy === 1 ? "y" : "ies"}` : trustProxy.join(", ")}`;
  return `rate limits: live keys ${rule(live)}, test keys ${rule(test)}, failed authentications ${rule(authFailures)} per address; ${client}`;
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || (error instanceof Error && error.name === "EmbeddedDatabaseBusyError")) {
    console.error(error.message);
  } else {
    console.error("paygate failed to start:", error);
  }
  process.exit(1);
});

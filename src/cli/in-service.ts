// The service's side of the CLI's socket (service-socket.ts): each command line runs here, on the
// service's runtime and configuration, as `paygate` would run it in a process of its own.
import type { Server } from "node:net";
import { Readable } from "node:stream";
import type { Config } from "../config.ts";
import type { Runtime } from "../runtime.ts";
import { runCli } from "./run.ts";
import { runsInService, serveCliCommands, serviceSocketPath } from "./service-socket.ts";

/** Serves the CLI on the embedded database's socket; null (and a log line) when it cannot listen. */
export async function serveCliInService(runtime: Runtime, config: Config, log: (line: string) => void): Promise<Server | null> {
  if (config.database.kind !== "pglite") return null; // on PostgreSQL the CLI opens the database itself
  const socketPath = serviceSocketPath(config.database.dataDir);
  try {
    const server = await serveCliCommands(socketPath, async (argv, io) => {
      if (!runsInService(argv)) {
        io.stderr.write("paygate: the service runs the background jobs itself; paygate worker runs without it\n");
        return 1;
      }
      const stdin = io.stdin === null ? undefined : Readable.from([io.stdin]);
      return runCli(argv, { env: process.env, stdout: io.stdout, stderr: io.stderr, stdin, service: { runtime, config } });
    });
    log(`CLI: paygate commands run in this service while it holds the embedded database (${socketPath})`);
    return server;
  } catch (error) {
    log(`CLI: cannot listen on ${socketPath} (${error instanceof Error ? error.message : String(error)}); stop the service to run paygate commands`);
    return null;
  }
}

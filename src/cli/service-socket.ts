// The CLI while the service runs on the embedded database (issue 28). PGlite belongs to one process, so a
// second process cannot open it; instead the service listens on a Unix socket beside its data folder
// (readable by its own user only), and `paygate` hands its command line to it: the command runs in the
// service, on its runtime, and its output and exit code come back. Light on purpose: the CLI reaches the
// running service without loading the database code, so a call answers in about the time Node starts.
import { chmodSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import path from "node:path";

/** One line of JSON each way: the command, then its output as it comes and its exit code. */
interface CommandMessage {
  argv: string[];
  /** Standard input, read whole by the CLI, for `--password-stdin`; null when the command reads none. */
  stdin: string | null;
}
type ReplyMessage = { out: string } | { err: string } | { exit: number };

/** Where the service listens: beside the embedded database's folder (`<PAYGATE_DATA_DIR>/pglite.cli.sock`). */
export function serviceSocketPath(pgliteDir: string): string {
  return `${pgliteDir}.cli.sock`;
}

/** The embedded database's folder as src/config.ts derives it, without loading the configuration. */
export function embeddedDatabaseDir(env: NodeJS.ProcessEnv): string | null {
  if (env.DATABASE_URL) return null; // PostgreSQL: the CLI opens the database itself, beside the service
  return path.join(path.resolve(env.PAYGATE_DATA_DIR || "./.data"), "pglite");
}

/** A command the service cannot run for the CLI: `worker` is a process of its own. */
export function runsInService(argv: readonly string[]): boolean {
  // `listen` talks to the service over HTTP and needs no database.
  return argv.length > 0 && argv[0] !== "worker" && argv[0] !== "listen";
}

export type CommandRunner = (
  argv: string[],
  io: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown }; stdin: string | null },
) => Promise<number>;

/**
 * Serves CLI commands on `socketPath` until closed. Unix sockets only (a path longer than the system's
 * limit, about 100 bytes, fails to listen: the caller logs it and the CLI keeps its old refusal).
 */
export async function serveCliCommands(socketPath: string, run: CommandRunner): Promise<Server> {
  rmSync(socketPath, { force: true }); // left by a service that did not stop cleanly: the data folder's lock says none runs
  const server = createServer((socket) => {
    void handle(socket, run);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  chmodSync(socketPath, 0o600); // the database's own user only, as the data folder
  server.once("close", () => rmSync(socketPath, { force: true }));
  return server;
}

async function handle(socket: Socket, run: CommandRunner): Promise<void> {
  const send = (message: ReplyMessage) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  socket.on("error", () => socket.destroy());
  try {
    const command = parseCommand(await firstLine(socket));
    if (command === null) {
      send({ err: "paygate: the service did not understand the command\n" });
      send({ exit: 2 });
    } else {
      const code = await run(command.argv, {
        stdout: { write: (out) => send({ out }) },
        stderr: { write: (err) => send({ err }) },
        stdin: command.stdin,
      });
      send({ exit: code });
    }
  } catch (error) {
    send({ err: `paygate: unexpected error in the service: ${error instanceof Error ? error.message : String(error)}\n` });
    send({ exit: 1 });
  }
  socket.end();
}

function parseCommand(line: string): CommandMessage | null {
  try {
    const value = JSON.parse(line) as Partial<CommandMessage>;
    if (!Array.isArray(value.argv) || !value.argv.every((a) => typeof a === "string")) return null;
    return { argv: value.argv, stdin: typeof value.stdin === "string" ? value.stdin : null };
  } catch {
    return null;
  }
}

/** The first line a socket sends (the command: at most 1 MiB). */
function firstLine(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const end = text.indexOf("\n");
      if (end >= 0) {
        socket.off("data", onData);
        resolve(text.slice(0, end));
      } else if (text.length > 1 << 20) reject(new Error("command too long"));
    };
    socket.on("data", onData);
    socket.once("end", () => reject(new Error("the command ended before its line")));
  });
}

/**
 * Hands the command to a service listening on `socketPath` and relays what it prints; answers the
 * command's exit code, or null when no service listens there (the CLI then runs the command itself).
 */
export function forwardToService(
  socketPath: string,
  argv: readonly string[],
  stdin: string | null,
  io: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } },
): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = createConnection(socketPath);
    let connected = false;
    let buffered = "";
    let exit: number | null = null;
    socket.once("connect", () => {
      connected = true;
      socket.write(`${JSON.stringify({ argv: [...argv], stdin } satisfies CommandMessage)}\n`);
    });
    socket.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
        const message = JSON.parse(buffered.slice(0, end)) as ReplyMessage;
        buffered = buffered.slice(end + 1);
        if ("out" in message) io.stdout.write(message.out);
        else if ("err" in message) io.stderr.write(message.err);
        else exit = message.exit;
      }
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      if (!connected) return resolve(null); // ENOENT, ECONNREFUSED: no service there
      io.stderr.write(`paygate: the running service's connection failed: ${error.message}\n`);
      resolve(1);
    });
    socket.once("close", () => {
      if (!connected) return;
      if (exit === null) io.stderr.write("paygate: the running service ended the command without an exit code (did it stop?)\n");
      resolve(exit ?? 1);
    });
  });
}

// `paygate` as a process (bin/paygate.mjs): runs the command line, then exits with its code. On the
// embedded database, a running service owns PGlite: the command is handed to it (service-socket.ts)
// before anything heavy is loaded, and runs here only when no service listens.
import { embeddedDatabaseDir, forwardToService, runsInService, serviceSocketPath } from "./service-socket.ts";

const argv = process.argv.slice(2);

// `paygate … | head` closes the pipe early: the reader has what it wanted, so stop quietly (as Unix tools do).
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

async function main(): Promise<number> {
  const dataDir = embeddedDatabaseDir(process.env);
  if (dataDir !== null && runsInService(argv)) {
    const stdin = argv.includes("--password-stdin") ? await readAll(process.stdin) : null;
    const code = await forwardToService(serviceSocketPath(dataDir), argv, stdin, { stdout: process.stdout, stderr: process.stderr });
    if (code !== null) return code;
    if (stdin !== null) return runHere(stdin);
  }
  return runHere(null);
}

/** Runs the command in this process (standard input already read, when it was). */
async function runHere(stdin: string | null): Promise<number> {
  const { runCli } = await import("./run.ts");
  const { Readable } = await import("node:stream");
  return runCli(argv, {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: stdin === null ? process.stdin : Readable.from([stdin]),
  });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
  return text;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("paygate: unexpected error:", error);
    process.exit(1);
  },
);

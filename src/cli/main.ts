// `paygate` as a process (bin/paygate.mjs): runs the command line, then exits with its code.
import { runCli } from "./run.ts";

runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("paygate: unexpected error:", error);
    process.exit(1);
  },
);

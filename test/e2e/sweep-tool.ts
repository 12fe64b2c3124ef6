// The sweep tool (tools/sweep) as the merchant runs it, for the end-to-end tests: its own process,
// stdin piped in; and secret files for its --key, --fee-key and --api-key-file in a folder of the test's.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

const TOOL = path.resolve(import.meta.dirname, "../../tools/sweep/sweep.ts");

export function runSweepTool(args: string[], stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", TOOL, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** A file only its owner reads, in `dir`: its path. */
export function secretFile(dir: string, name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text, { mode: 0o600 });
  return at;
}

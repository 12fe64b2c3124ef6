// `npm run typecheck`: the service and its tests, the pages, the SDK and the shop plugins, each with its
// own tsconfig. Two lanes at once (a machine has two cores, each tsc uses one): the service and the
// pages in one, the SDK and the plugins in the other. Each lane's output is printed when it ends, so two
// lanes' errors never interleave; the run fails when either fails.
import { spawn } from "node:child_process";

const lanes = [
  [
    ["npx", ["tsc", "-p", "tsconfig.json"]],
    ["npx", ["tsc", "-p", "web/tsconfig.json"]],
  ],
  [
    ["npx", ["tsc", "-p", "sdk/tsconfig.json"]],
    ["node", ["scripts/integrations.mjs", "typecheck"]],
  ],
];

/** Runs a lane's commands one after another until one fails; resolves to its exit code and output. */
async function runLane(commands) {
  let output = "";
  for (const [command, args] of commands) {
    output += `> ${command} ${args.join(" ")}\n`;
    const code = await new Promise((resolve) => {
      const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      child.on("error", (error) => {
        output += `${error.message}\n`;
        resolve(1);
      });
      child.on("close", (exit) => resolve(exit ?? 1));
    });
    if (code !== 0) return { code, output };
  }
  return { code: 0, output };
}

const results = await Promise.all(lanes.map(runLane));
for (const { output } of results) process.stdout.write(output);
const failed = results.find((result) => result.code !== 0);
if (failed) {
  console.error("typecheck failed: the errors are above, each under the command that found it");
  process.exit(failed.code);
}

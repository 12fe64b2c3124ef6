// The committed generated types must be what `npm run codegen` writes from schema.graphql now.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

it("has fresh generated GraphQL types (run `npm run codegen` when this fails)", async () => {
  const result = await run(process.execPath, ["node_modules/@graphql-codegen/cli/cjs/bin.js", "--config", "codegen.yml", "--check"]).then(
    (r) => ({ code: 0, output: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, output: e.stdout + e.stderr }),
  );
  expect(result.output).not.toMatch(/stale|would be written|changes/i);
  expect(result.code).toBe(0);
}, 60_000);

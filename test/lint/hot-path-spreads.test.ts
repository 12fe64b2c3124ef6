// No key added after a spread on a payment's request path (CONTRIBUTING, the rules of the code): on Node 20's
// V8 such a key gives the copy a new hidden class with all its keys, 1.7 µs for a small object and 7–11 µs
// for a transaction row, where a literal written out costs 0.02 µs (docs/benchmarks.md, issue 47). Keys the
// copy already has are fast to override: such a literal, or one off the hot path, carries `// spread:` and
// why, on its own line or the line before.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");

/** What initialize, initiate and a read of a transaction run on every request. */
const HOT_FILES = [
  "src/core/credentials.ts",
  "src/core/rate-limits.ts",
  "src/core/rate-limit-leads.ts",
  "src/core/events/outbox-event.ts",
  "src/core/events/payment-events.ts",
  "src/core/facades/payments.ts",
  "src/core/records/transactions.ts",
  "src/core/transactions/checkout.ts",
  "src/core/transactions/details.ts",
  "src/core/transactions/initialize.ts",
  "src/core/transactions/initiate.ts",
  "src/core/transactions/payment-request.ts",
  "src/core/transactions/record.ts",
  "src/core/transactions/view.ts",
  "src/db/direct-sql.ts",
  "src/db/stores/group-commit.ts",
  "src/db/stores/index-leases.ts",
  "src/db/stores/initialize-groups.ts",
  "src/db/stores/initiate-memory.ts",
  "src/db/stores/transactions.ts",
  "src/edge/rate-limits.ts",
  "src/http/v1/transactions/presenters.ts",
  "src/http/v1/transactions/routes.ts",
];

const EXPLAINED = /\/\/ spread: \S/;

/** `file:line` of each object literal in `source` with a key after a spread and no `// spread:` reason. */
function unexplainedSpreads(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const lines = source.split("\n");
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const first = node.properties.findIndex((p) => ts.isSpreadAssignment(p));
      const keyAfter = first >= 0 && node.properties.slice(first + 1).some((p) => !ts.isSpreadAssignment(p));
      const line = tree.getLineAndCharacterOfPosition(node.getStart()).line;
      if (keyAfter && !EXPLAINED.test(lines[line] ?? "") && !EXPLAINED.test(lines[line - 1] ?? "")) found.push(`${file}:${line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

describe("the request's paths", () => {
  it("add no key after a spread, unless a `// spread:` comment says why it is fine", () => {
    const found = HOT_FILES.flatMap((file) => unexplainedSpreads(file, readFileSync(path.join(root, file), "utf8")));
    expect(found).toEqual([]);
  });

  it("sees such a key, and takes a reason on the line or the one before", () => {
    const source = [
      "const a = { ...row, merchant };",
      "const b = { ...row };",
      "const c = { merchant, ...row };",
      "const f = [{ id, nested: { ...x, y } }];",
      "// spread: overrides only",
      "const d = { ...row, status };",
      "const e = { ...row, status }; // spread: overrides only",
      "// spread:",
      "const g = { ...row, status };",
    ].join("\n");
    expect(unexplainedSpreads("probe.ts", source)).toEqual(["probe.ts:1", "probe.ts:4", "probe.ts:9"]);
  });
});

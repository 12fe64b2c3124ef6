// The layering rules of biome.json (noRestrictedImports) and the import-loop check, each proved by a deliberate bad
// import: a probe file written where the rule applies fails the lint with the rule's message, and the same probe
// with an allowed import passes (so the test can fail both ways). Issue 45.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { importGraph, loops } from "../../scripts/import-cycles.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const run = promisify(execFile);
const biome = path.join(root, "node_modules", ".bin", "biome");

/**
 * A tree of its own with the repository's biome.json (no VCS: the probes are not in git), so that no probe is
 * ever written into src/ while other tests read it: the rules match import specifiers and the file's path only.
 */
function probeTree(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "paygate-lint-"));
  const config = JSON.parse(readFileSync(path.join(root, "biome.json"), "utf8")) as Record<string, unknown>;
  delete config.$schema;
  config.vcs = { enabled: false };
  writeFileSync(path.join(dir, "biome.json"), JSON.stringify(config));
  return dir;
}

/** Lints one probe file at `file` (as if in the repository) holding `source`. */
async function lint(tree: string, file: string, source: string): Promise<{ ok: boolean; output: string }> {
  const probe = path.join(tree, file);
  mkdirSync(path.dirname(probe), { recursive: true });
  writeFileSync(probe, source);
  try {
    await run(biome, ["lint", "--colors=off", "--only=style/noRestrictedImports", file], { cwd: tree });
    return { ok: true, output: "" };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  } finally {
    unlinkSync(probe);
  }
}

interface Rule {
  name: string;
  /** Where the probe goes. */
  file: string;
  bad: string;
  good: string;
  /** A piece of the rule's message. */
  says: string;
}

const probe = (specifier: string) => `import * as imported from "${specifier}";\n\nexport const probe = imported;\n`;

const RULES: Rule[] = [
  {
    name: "core → db",
    file: "src/core/lint-probe.ts",
    bad: probe("../db/database.ts"),
    good: probe("./errors.ts"),
    says: "The domain core imports no adapter",
  },
  {
    name: "http → graphql",
    file: "src/http/lint-probe.ts",
    bad: probe("../graphql/errors.ts"),
    good: probe("../edge/errors.ts"),
    says: "never import GraphQL",
  },
  {
    name: "graphql → http",
    file: "src/graphql/lint-probe.ts",
    bad: probe("../http/body.ts"),
    good: probe("../edge/errors.ts"),
    says: "never imports REST",
  },
  { name: "edge → http", file: "src/edge/lint-probe.ts", bad: probe("../http/body.ts"), good: probe("./errors.ts"), says: "import none of them" },
  {
    name: "http → jobs",
    file: "src/http/lint-probe.ts",
    bad: probe("../jobs/ticker.ts"),
    good: probe("../core/errors.ts"),
    says: "Nothing imports the jobs",
  },
  {
    name: "observability → jobs",
    file: "src/observability/lint-probe.ts",
    bad: probe("../jobs/ticker.ts"),
    good: probe("./hooks.ts"),
    says: "Nothing imports the jobs",
  },
  {
    name: "rails → db",
    file: "src/rails/chains/lint-probe.ts",
    bad: probe("../../db/database.ts"),
    good: probe("../../core/ports.ts"),
    says: "The rails",
  },
  { name: "rails → config", file: "src/rails/prices/lint-probe.ts", bad: probe("../../config.ts"), good: probe("./config.ts"), says: "The rails" },
  {
    name: "rails → http",
    file: "src/rails/prices/lint-probe.ts",
    bad: probe("../../http/body.ts"),
    good: probe("../http/outbound.ts"),
    says: "The rails",
  },
  { name: "rails → jobs", file: "src/rails/chains/lint-probe.ts", bad: probe("../../jobs/ticker.ts"), good: probe("./index.ts"), says: "The rails" },
  {
    name: "db → rails",
    file: "src/db/lint-probe.ts",
    bad: probe("../rails/chains/index.ts"),
    good: probe("../core/errors.ts"),
    says: "The database (src/db)",
  },
  {
    name: "db → http",
    file: "src/db/stores/lint-probe.ts",
    bad: probe("../../http/body.ts"),
    good: probe("../../core/stores/index.ts"),
    says: "The database (src/db)",
  },
  {
    name: "webhooks → db",
    file: "src/webhooks/lint-probe.ts",
    bad: probe("../db/outbox.ts"),
    good: probe("../core/ports.ts"),
    says: "Webhook sending",
  },
  {
    name: "webhooks → jobs",
    file: "src/webhooks/lint-probe.ts",
    bad: probe("../jobs/ticker.ts"),
    good: probe("../rails/http/outbound.ts"),
    says: "Webhook sending",
  },
  {
    name: "jobs → db",
    file: "src/jobs/lint-probe.ts",
    bad: probe("../db/database.ts"),
    good: probe("../core/ports.ts"),
    says: "The jobs (src/jobs)",
  },
  {
    name: "jobs → http",
    file: "src/jobs/lint-probe.ts",
    bad: probe("../http/body.ts"),
    good: probe("../webhooks/signing.ts"),
    says: "The jobs (src/jobs)",
  },
  { name: "jobs → config", file: "src/jobs/lint-probe.ts", bad: probe("../config.ts"), good: probe("./config.ts"), says: "The jobs (src/jobs)" },
];

describe("the import rules of biome.json, each on a deliberate bad import", () => {
  const tree = probeTree();
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  for (const rule of RULES) {
    it(`refuses ${rule.name} with its message, and lets an allowed import through`, async () => {
      const bad = await lint(tree, rule.file, rule.bad);
      expect(bad.ok).toBe(false);
      expect(bad.output).toContain(rule.says);
      const good = await lint(tree, rule.file, rule.good);
      expect(good).toEqual({ ok: true, output: "" });
    }, 30_000);
  }

  it("refuses src/config.ts an adapter's module other than its config.ts, and lets the config.ts through", async () => {
    for (const bad of [
      "./db/database.ts",
      "./edge/connection-limits.ts",
      "./rails/prices/live.ts",
      "./jobs/ticker.ts",
      "./webhooks/signing.ts",
      "./runtime.ts",
    ]) {
      const result = await lint(tree, "src/config.ts", probe(bad));
      expect(result.ok, bad).toBe(false);
      expect(result.output).toContain("src/config.ts composes the adapters' configuration schemas");
    }
    for (const good of ["./db/config.ts", "./edge/config.ts", "./rails/prices/config.ts", "./jobs/config.ts", "./webhooks/config.ts", "./env.ts"]) {
      expect(await lint(tree, "src/config.ts", probe(good)), good).toEqual({ ok: true, output: "" });
    }
  }, 60_000);
});

describe("the import-loop check (scripts/import-cycles.ts, npm run lint:cycles)", () => {
  it("finds none in src", () => {
    expect(loops(importGraph(path.join(root, "src")))).toEqual([]);
  });

  it("finds a loop of two files, type imports included", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "paygate-loops-"));
    try {
      writeFileSync(path.join(dir, "a.ts"), 'import type { B } from "./b.ts";\nexport type A = B;\n');
      writeFileSync(path.join(dir, "b.ts"), 'import type { A } from "./a.ts";\nexport type B = A | null;\n');
      writeFileSync(path.join(dir, "c.ts"), 'import type { A } from "./a.ts";\nexport type C = A;\n');
      expect(loops(importGraph(dir))).toEqual([[path.join(dir, "a.ts"), path.join(dir, "b.ts")]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// docs/configuration.md is generated from the configuration schema (`npm run docs:config`): the committed page
// must be exactly what the schema gives, and every variable must say what it does (issue 28).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CONFIGURATION_DOC, renderConfigurationDoc } from "../../scripts/docs-config.ts";
import { EnvSchema } from "../../src/config.ts";

describe("docs/configuration.md", () => {
  it("is what npm run docs:config writes from the schema (run it after changing a variable)", () => {
    expect(readFileSync(CONFIGURATION_DOC, "utf8"), "docs/configuration.md is stale: run `npm run docs:config`").toBe(renderConfigurationDoc());
  });

  it("lists every variable the service reads, each once, with its description", () => {
    const page = renderConfigurationDoc();
    for (const [name, schema] of Object.entries(EnvSchema.shape)) {
      const rows = page.split("\n").filter((line) => line.startsWith(`| \`${name}\` |`));
      expect(rows, name).toHaveLength(1);
      expect(schema.description, name).toMatch(/\S/);
      expect(rows[0]).toContain(schema.description!.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " "));
    }
  });

  it("refuses a variable without a description, and one that no section shows", () => {
    const variables = { PAYGATE_DESCRIBED: z.string().describe("Does something. Default: unset."), PAYGATE_SILENT: z.string() };
    const section = { title: "Test", intro: "Test.", variables };
    expect(() => renderConfigurationDoc([section], variables)).toThrow(/PAYGATE_SILENT: no \.describe\(\)/);
    expect(() => renderConfigurationDoc([{ ...section, variables: {} }], { PAYGATE_ELSEWHERE: z.string().describe("x") })).toThrow(
      /PAYGATE_ELSEWHERE: in the schema but in no section/,
    );
    expect(renderConfigurationDoc([{ ...section, variables: { A: z.string().describe("a | b") } }], { A: z.string() })).toContain(
      "| `A` | a \\| b |",
    );
  });
});

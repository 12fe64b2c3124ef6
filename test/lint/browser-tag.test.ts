// Every test file that starts Chromium carries `// @module-tag browser`, the tag vitest.config.ts gives a
// longer timeout: without it, a page test that passes alone times out on a loaded CI machine (stop 58).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import config from "../../vitest.config.ts";

const root = path.resolve(import.meta.dirname, "..", "..");

/** What starts a Chromium in a test file: the support's launcher and the fixtures built on it. */
const STARTS_A_BROWSER = /\b(launchBrowser|browserFixture|dashboardBrowserFixture|checkoutFixture)\(/;
const TAG = /^\/\/ @module-tag browser$/m;

/** The files among `sources` (path → text) that start a browser without the tag. */
function untagged(sources: Map<string, string>): string[] {
  return [...sources].filter(([, text]) => STARTS_A_BROWSER.test(text) && !TAG.test(text)).map(([file]) => file);
}

function testFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts") && !file.includes("node_modules"))
    .map((file) => path.join(dir, file))
    .filter((file) => file !== path.relative(root, import.meta.filename)); // its probes below are text
}

describe("the browser tag", () => {
  it("is on every test file that starts Chromium, and the config gives it more time than a test's default", () => {
    const integrations = readdirSync(path.join(root, "integrations")).map((name) => path.join("integrations", name));
    const dirs = [
      "test",
      "sdk/test",
      ...integrations.filter((dir) => readdirSync(path.join(root, dir)).includes("test")).map((dir) => `${dir}/test`),
    ];
    const sources = new Map(dirs.flatMap(testFiles).map((file) => [file, readFileSync(path.join(root, file), "utf8")]));
    const browserFiles = [...sources].filter(([, text]) => STARTS_A_BROWSER.test(text));
    expect(browserFiles.length).toBeGreaterThanOrEqual(29);
    expect(untagged(sources)).toEqual([]);

    const tag = config.test?.tags?.find((t) => t.name === "browser");
    expect(tag?.timeout).toBeGreaterThan(config.test?.testTimeout ?? 0);
  });

  it("names a file that starts Chromium without it, and not one that starts none", () => {
    const sources = new Map([
      ["a.test.ts", 'const f = checkoutFixture();\nit("pays", () => {});'],
      ["b.test.ts", "// @module-tag browser\nconst f = dashboardBrowserFixture();"],
      ["c.test.ts", 'it("adds", () => expect(1 + 1).toBe(2));'],
      ["d.test.ts", "// A comment that says @module-tag browser is not the tag.\nconst b = await launchBrowser();"],
    ]);
    expect(untagged(sources)).toEqual(["a.test.ts", "d.test.ts"]);
  });
});

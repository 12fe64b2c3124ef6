// Before `npm test`: tests drive programs that no npm package may download, from Debian's archive:
// Chromium (the browser tests), ZBar's zbarimg (the QR tests' second decoder), Poppler's pdftotext (the
// invoice PDF tests) and Litecoin Core (the own-node chain tests). When one is missing on a Debian machine where we are root (a fresh
// development machine, CI), install it once; anywhere else, say what to do. Never fails the run
// itself: a test without its tool fails with the same instruction.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { installIntegrations } from "./integrations.mjs";

const has = (command) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
const chromium = process.env.PAYGATE_CHROMIUM ?? "/usr/bin/chromium";

/** What the tests need: the Debian package, whether it is there, and whether this run needs it. */
const TOOLS = [
  // With DATABASE_URL the browser tests do not run (vitest.config.ts).
  {
    pkg: "chromium",
    present: () => existsSync(chromium),
    needed: !process.env.DATABASE_URL,
    what: `Chromium at ${chromium} (or set PAYGATE_CHROMIUM)`,
  },
  { pkg: "zbar-tools", present: () => has("zbarimg"), needed: true, what: "zbarimg" },
  // The invoice PDF tests read the PDF's text back (issue 44).
  { pkg: "poppler-utils", present: () => has("pdftotext"), needed: true, what: "pdftotext" },
  // The own-node chain tests (a regtest node) do not use the database: they run without DATABASE_URL only.
  { pkg: "litecoind", present: () => has("litecoind"), needed: !process.env.DATABASE_URL, what: "litecoind" },
];

// The shop plugins' own packages (integrations/*): their tests run on the PostgreSQL pass only.
if (process.env.DATABASE_URL) installIntegrations();

const missing = TOOLS.filter((tool) => tool.needed && !tool.present());
if (missing.length === 0) process.exit(0);

const names = missing.map((tool) => tool.pkg);
const howTo = `install Debian's ${names.join(" and ")} (apt-get install -y ${names.join(" ")})`;
if (process.getuid?.() !== 0 || !has("apt-get") || process.env.PAYGATE_NO_BROWSER_INSTALL) {
  console.warn(`paygate tests: missing ${missing.map((tool) => tool.what).join(", ")}; the tests that use them will fail until you ${howTo}.`);
  process.exit(0);
}
console.log(`paygate tests: installing Debian's ${names.join(" and ")} for the tests (once, about a minute)…`);
try {
  execFileSync("apt-get", ["update", "-q"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-q", ...names], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  for (const tool of missing) {
    if (tool.present()) console.log(`paygate tests: ${tool.pkg} installed.`);
    else console.warn(`paygate tests: ${tool.pkg} is installed, but ${tool.what} is still not found.`);
  }
} catch (error) {
  console.warn(`paygate tests: installing ${names.join(" and ")} failed (${error.message}); the tests that use them will fail until you ${howTo}.`);
}

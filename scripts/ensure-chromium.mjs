// Before `npm test`: the browser tests (test/browser/) drive Debian's Chromium, which no npm
// package may download. When it is missing on a Debian machine where we are root (a fresh
// development machine, CI), install it once; anywhere else, say what to do. Never fails the run
// itself: without a browser the browser tests fail with the same instruction.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const binary = process.env.PAYGATE_CHROMIUM ?? "/usr/bin/chromium";
const has = (command) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;

if (existsSync(binary)) process.exit(0);
// With DATABASE_URL the browser tests do not run (vitest.config.ts): nothing to install.
if (process.env.DATABASE_URL) process.exit(0);

const howTo = "install Debian's chromium (apt-get install -y chromium) or set PAYGATE_CHROMIUM to a Chromium binary";
if (process.getuid?.() !== 0 || !has("apt-get") || process.env.PAYGATE_NO_BROWSER_INSTALL) {
  console.warn(`paygate tests: no Chromium at ${binary}; the browser tests will fail until you ${howTo}.`);
  process.exit(0);
}
console.log(`paygate tests: no Chromium at ${binary}; installing Debian's chromium for the browser tests (once, about a minute)…`);
try {
  execFileSync("apt-get", ["update", "-q"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-q", "chromium"], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (existsSync(binary)) console.log(`paygate tests: Chromium installed at ${binary}.`);
  else console.warn(`paygate tests: chromium is installed, but not at ${binary}; set PAYGATE_CHROMIUM to its path.`);
} catch (error) {
  console.warn(`paygate tests: installing chromium failed (${error.message}); the browser tests will fail until you ${howTo}.`);
}

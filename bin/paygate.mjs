#!/usr/bin/env node
// The operator CLI. In a checkout (src/ present) it runs the TypeScript sources through tsx, like
// `npm start`; in a build without the sources (the Docker image: dist/ only) it runs the compiled
// dist/cli/main.js with plain Node.
import { existsSync } from "node:fs";

const sources = new URL("../src/cli/main.ts", import.meta.url);
const built = new URL("../dist/cli/main.js", import.meta.url);

if (existsSync(sources)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(sources.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  console.error("paygate: found neither src/cli/main.ts nor dist/cli/main.js; build it first with: npm run build");
  process.exit(1);
}

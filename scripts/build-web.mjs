// Builds the browser pages in web/ (the hosted checkout) into web/dist/ with Vite: run by
// `npm install` (postinstall), `npm run build` and `npm run build:web`, so the service always has
// its assets and nothing is loaded from a CDN. A production install without the dev dependencies
// (`npm ci --omit=dev`) has no Vite: it says so and leaves the build to a full install; the service
// then answers its pages with a 503 naming `npm run build:web`.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const optional = process.argv.includes("--if-available");

let vite;
try {
  createRequire(import.meta.url).resolve("vite/package.json");
  vite = await import("vite");
} catch {
  if (optional) {
    console.log("web/: Vite is not installed (a production install): the pages are not built; a full `npm install` builds them");
    process.exit(0);
  }
  console.error("web/: Vite is not installed: run `npm install` (with the dev dependencies), then `npm run build:web`");
  process.exit(1);
}

const started = Date.now();
await vite.build({ configFile: path.join(root, "web", "vite.config.ts"), logLevel: "warn" });
console.log(`web/: pages built into web/dist/ in ${Date.now() - started} ms`);

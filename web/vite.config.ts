// The browser pages paygate serves itself, built by `npm run build:web` (and at install) into
// web/dist/. One build for every page (the checkout now, a merchant dashboard later): each page is
// an entry below, and their shared code (web/shared/) lands in shared, content-hashed chunks.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const web = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: web,
  // The service serves web/dist/assets/ at /checkout/assets/ (src/http/checkout-page.ts), for
  // every page: the dashboard's HTML names its assets there too.
  base: "/checkout/",
  publicDir: false,
  logLevel: "warn",
  build: {
    outDir: path.join(web, "dist"),
    emptyOutDir: true,
    assetsDir: "assets",
    // No inline script or style may reach a page: its Content-Security-Policy allows neither.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: true,
    rolldownOptions: {
      input: { checkout: path.join(web, "checkout", "index.html"), dashboard: path.join(web, "dashboard", "index.html") },
    },
  },
});

// `prisma generate` needs no schema engine, but the CLI downloads one before it starts unless
// PRISMA_SCHEMA_ENGINE_BINARY names an existing file. Point it at this script, for generate only:
// with that variable set, `prisma migrate` would silently do nothing, so it is never set globally.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);
const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: self, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
});
process.exit(result.status ?? 1);

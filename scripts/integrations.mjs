// The shop plugins in integrations/ (issue 44) are npm packages of their own, each with its own
// lockfile and node_modules: installed here (once, then again only when its lockfile changes) and
// typechecked with its own tsconfig. `node scripts/integrations.mjs typecheck` does both;
// scripts/ensure-test-tools.mjs installs them before the PostgreSQL pass, where their tests run.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Every integrations/<name> folder that is a package with a lockfile. */
export function integrationFolders() {
  const base = join(root, "integrations");
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .map((name) => join(base, name))
    .filter((folder) => existsSync(join(folder, "package-lock.json")));
}

/** `npm ci` in each integration whose install is missing or older than its lockfile. */
export function installIntegrations() {
  for (const folder of integrationFolders()) {
    const stamp = join(folder, "node_modules", ".package-lock.json");
    const lock = join(folder, "package-lock.json");
    if (existsSync(stamp) && statSync(stamp).mtimeMs >= statSync(lock).mtimeMs) continue;
    console.log(`paygate: installing ${folder} (npm ci, once)…`);
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: folder, stdio: "inherit" });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === "install" || command === "typecheck") installIntegrations();
  if (command === "typecheck") {
    for (const folder of integrationFolders()) {
      if (!existsSync(join(folder, "tsconfig.json"))) continue;
      console.log(`paygate: typecheck ${folder}`);
      execFileSync("npx", ["tsc", "-p", join(folder, "tsconfig.json"), "--noEmit"], { cwd: folder, stdio: "inherit" });
    }
  } else if (command !== "install") {
    console.error("usage: node scripts/integrations.mjs install|typecheck");
    process.exit(2);
  }
}

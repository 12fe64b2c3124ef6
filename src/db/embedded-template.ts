// A new embedded database as a copy of one already made and migrated (issue 46). On an empty folder
// PGlite runs initdb (some 7 s of CPU, measured) and then every migration (2 s more): a first
// `npm start` or `paygate` took 20 s and more to answer on a busy machine. The same database, made
// once per PGlite version and set of migrations and kept in node_modules/.cache/paygate/, is copied
// into the folder instead, in well under a second; the service then opens it as any existing one.
// The copy is made by `npm install` (scripts/embedded-template.ts) or by the first fresh start. An
// install that cannot write there (the Docker image's, owned by root) makes the database in place as before.
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { applyMigrations, listMigrations, MIGRATIONS_DIR } from "./migrations.ts";

/** Where the copies are kept: the install's own cache folder, beside its PGlite. */
export const TEMPLATES_DIR = path.join(path.resolve(MIGRATIONS_DIR, "..", ".."), "node_modules", ".cache", "paygate");

/**
 * Fills `dataDir` (an embedded database's folder, absent or empty) with a copy of the migrated
 * template, made first when there is none. Answers where it came from, or null when the folder
 * already holds something or no template could be made: PGlite then does as it always did.
 */
export async function seedEmbeddedDatabase(dataDir: string): Promise<string | null> {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return null; // a database already, or something else: not ours to replace
  let template: string;
  try {
    template = await embeddedTemplate();
  } catch {
    return null;
  }
  try {
    cpSync(template, dataDir, { recursive: true });
    return template;
  } catch {
    rmSync(dataDir, { recursive: true, force: true }); // half a copy is no database: PGlite makes one in place
    return null;
  }
}

/** The template's folder for this PGlite and these migrations, made (and migrated) when missing. */
export async function embeddedTemplate(): Promise<string> {
  const folder = path.join(TEMPLATES_DIR, `pglite-${await templateKey()}`);
  if (existsSync(path.join(folder, "PG_VERSION"))) return folder;
  mkdirSync(TEMPLATES_DIR, { recursive: true });
  // Made aside and renamed whole: a process copying it never sees half a database.
  const partial = `${folder}.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import("@electric-sql/pglite"), import("pglite-prisma-adapter")]);
    mkdirSync(partial);
    const pglite = await PGlite.create({ dataDir: partial });
    try {
      await applyMigrations(new PrismaPGlite(pglite));
    } finally {
      await pglite.close();
    }
    renameSync(partial, folder);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(path.join(folder, "PG_VERSION"))) throw error; // else another process made it meanwhile
  }
  return folder;
}

/** Changes with PGlite's version and with any migration's name or text. */
async function templateKey(): Promise<string> {
  const hash = createHash("sha256");
  hash.update(pgliteVersion());
  for (const dir of (await listMigrations()).migrationDirectories) {
    hash.update(`\0${dir.path}\0${dir.migrationFile.content.tag}\0${dir.migrationFile.content.value}`);
  }
  return hash.digest("hex").slice(0, 16);
}

function pgliteVersion(): string {
  // The package's entry is dist/index.js; its package.json is one folder up (its exports hide it from resolve).
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const manifest = JSON.parse(readFileSync(path.join(path.dirname(entry), "..", "package.json"), "utf8")) as { version?: unknown };
  return String(manifest.version);
}

// PGlite is one process's database: a second process opening the same folder would corrupt it.
import { readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";

export class EmbeddedDatabaseBusyError extends Error {
  override name = "EmbeddedDatabaseBusyError";
}

/** Takes the folder's lock or says which process holds it; returns the release. */
export function lockEmbeddedDatabase(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  mkdirSync(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(file, "utf8"));
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new EmbeddedDatabaseBusyError(
          `The embedded database in ${dataDir} is in use by process ${holder} (a running paygate service?). ` +
            "Stop it first, or run paygate on PostgreSQL (DATABASE_URL) to use the service and the CLI together.",
        );
      }
      rmSync(file, { force: true }); // left by a process that is gone
    }
  }
  throw new EmbeddedDatabaseBusyError(`Could not lock the embedded database in ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

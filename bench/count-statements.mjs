// Preloaded by bench/paired.ts (COUNT=1): counts the statements the service sends through pg's Client
// and writes the count, as a one-element JSON array, to COUNT_FILE on SIGUSR2.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const pg = createRequire(`${process.cwd()}/package.json`)("pg");
let sent = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  sent++;
  return query.apply(this, args);
};
process.on("SIGUSR2", () => writeFileSync(process.env.COUNT_FILE ?? "/dev/null", JSON.stringify([sent])));

// A second process on the database of a running one: on PostgreSQL it starts at once (several
// instances and workers share one database); the embedded database belongs to one process, and the
// second is told which one holds it.
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startRuntime, type Runtime } from "../../src/runtime.ts";
import { useCli } from "../support/cli.ts";

const paygate = useCli();
let first: Runtime;

beforeAll(async () => {
  first = await startRuntime(loadConfig(paygate.env()), { log: () => {} }); // migrates, and stays open
});
afterAll(() => first.close());

it("lets a second process start beside a running one on PostgreSQL, and refuses it on the embedded database", async () => {
  const started = Date.now();
  const second = await paygate("webhooks", "list", "--json");
  if (paygate.env().DATABASE_URL) {
    expect(second.stderr).not.toMatch(/advisory lock|P1002|timed out/i);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ events: [] });
    expect(Date.now() - started).toBeLessThan(9000); // the migration lock's wait is 10 s
  } else {
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`in use by process ${process.pid}`));
  }
});

// A connection the server terminates while a database transaction holds it, between two statements
// (runs with DATABASE_URL only): the next statement fails as an outage (database_unavailable), nothing
// of the transaction is kept, and the pool serves the next request on a fresh connection.
import { afterAll, beforeAll, expect, it } from "vitest";
import { PaygateError } from "../../src/core/errors.ts";
import { admin } from "../support/test-database.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

it("fails the transaction as an outage, keeps nothing of it, and the next request is served", async () => {
  const name = new URL(t.store.url ?? "").pathname.slice(1);
  const before = await t.db.merchant.count();
  const attempt = t.db.$transaction(async (tx) => {
    await tx.merchant.create({ data: { name: "Half", webhookSecretEnc: "x" } });
    // The server ends this very session while the transaction holds it, idle between statements.
    await admin(
      process.env.DATABASE_URL ?? "",
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND state LIKE 'idle in transaction%'`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await tx.merchant.count();
  });
  await expect(attempt).rejects.toBeInstanceOf(PaygateError);
  await expect(attempt).rejects.toMatchObject({ code: "database_unavailable" });
  // Nothing of the transaction was kept, and the pool serves the next request on a fresh connection.
  expect(await t.db.merchant.count()).toBe(before);
  const res = await fetch(`${t.url}/readyz`);
  expect(res.status).toBe(200);
});

// A database that is gone or not migrated: every API call answers 503 naming the database, with
// Retry-After; the outage is logged once, not per request; /readyz says why, /livez stays up.
import { afterEach, describe, expect, it } from "vitest";
import { ModeRoutedFeed } from "../../src/rails/prices/index.ts";
import { testRateStore } from "../../src/db/stores/test-rates.ts";
import { operatorTestRates } from "../../src/core/test-rates.ts";
import { StoredTestRatesFeed, TestRatesFeed } from "../../src/rails/prices/test-rates.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { takeDatabaseAway } from "../support/outage.ts";
import { rawRequest } from "../support/raw-http.ts";
import { snapshotStore } from "../support/snapshot.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
afterEach(() => t?.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const order = initializeBody({ amount: "10" });
const logLines = () => t.logs.map((line) => JSON.parse(line) as { level: string; msg: string; err?: unknown });

async function setUp() {
  // Test mode priced as the service prices it: from the test_rates table.
  t = await startTestGateway({
    prices: (db) => new ModeRoutedFeed({ test: new StoredTestRatesFeed(operatorTestRates(testRateStore(db))), live: new TestRatesFeed() }),
  });
  const keys = await t.merchant();
  const initiated = (await t.post("/v1/transaction", order, bearer(keys.testPublicKey))).body.data.id as string;
  const pending = (await t.post("/v1/transaction", order, bearer(keys.testPublicKey))).body.data.id as string;
  expect((await t.post(`/v1/transaction/${pending}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey))).status).toBe(200);
  return { keys, initiated, pending };
}

/** Every REST route and GraphQL operation, as a client would call them. */
function everyCall(keys: Awaited<ReturnType<TestGateway["merchant"]>>, initiated: string, pending: string) {
  const json = (body: unknown, key: string) => ({ headers: { "content-type": "application/json", ...bearer(key) }, body: JSON.stringify(body) });
  const graphql = (query: string, key: string) => ({ method: "POST", path: "/graphql", ...json({ query }, key) });
  return {
    initialize: { method: "POST", path: "/v1/transaction", ...json(order, keys.testPublicKey) },
    initiate: { method: "POST", path: `/v1/transaction/${initiated}/pay`, ...json({ currency_id: "4" }, keys.testSecretKey) },
    retrieve: { method: "GET", path: `/v1/transaction/${pending}`, headers: bearer(keys.testSecretKey) },
    testPayment: { method: "POST", path: `/v1/test_helpers/transaction/${pending}/payment`, ...json({}, keys.testSecretKey) },
    testExpire: { method: "POST", path: `/v1/test_helpers/transaction/${pending}/expire`, ...json({}, keys.testSecretKey) },
    graphqlQuery: graphql(`{ transaction(id: "${pending}") { id status } }`, keys.testSecretKey),
    graphqlInitialize: graphql(
      'mutation { initializeTransaction(input: {customer: {email: "a@b.co"}, currency: USD, amount: "1"}) { id } }',
      keys.testPublicKey,
    ),
    graphqlInitiate: graphql(`mutation { initiatePayment(transactionId: "${initiated}", input: {currencyId: "4"}) { id } }`, keys.testSecretKey),
  };
}

describe("the database goes away", () => {
  it("answers 503 database_unavailable with Retry-After on every call, logs it once, and says so on /readyz", async () => {
    const { keys, initiated, pending } = await setUp();
    const before = await snapshotStore(t.db);
    const outage = await takeDatabaseAway(t.store);
    try {
      for (const [name, request] of Object.entries(everyCall(keys, initiated, pending))) {
        const res = await rawRequest(t.url, request);
        expect(res.status, name).toBe(503);
        expect(res.headers["retry-after"], name).toBe("5");
        const message = "The database is unavailable right now; nothing was changed, retry in a few seconds";
        if (request.path === "/graphql") {
          expect(res.json.errors[0], name).toMatchObject({
            message,
            extensions: { code: "DATABASE_UNAVAILABLE", status: 503, reason: "database_unreachable" },
          });
        } else {
          expect(res.json, name).toEqual({ status: "error", message, code: "database_unavailable", reason: "database_unreachable", errors: [] });
        }
      }
      const ready = await fetch(`${t.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "error", database: "unreachable", migrations: "unknown" });
      expect((await fetch(`${t.url}/healthz`)).status).toBe(503);
      const live = await fetch(`${t.url}/livez`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: "ok" });

      const lines = logLines();
      expect(lines.filter((line) => line.msg.startsWith("database unavailable"))).toHaveLength(1);
      expect(lines.filter((line) => line.err !== undefined)).toEqual([]); // no stack traces
    } finally {
      await outage.restore?.();
    }
    if (!outage.restore) return; // embedded: a closed PGlite does not come back
    // It recovers by itself, and says so once.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await fetch(`${t.url}/v1/transaction/${pending}`, { headers: bearer(keys.testSecretKey) })).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
    expect(logLines().filter((line) => line.msg.startsWith("database available again"))).toHaveLength(1);
    expect(await snapshotStore(t.db)).toEqual(before); // every refused call changed nothing
  });
});

describe("a database without this version's schema", () => {
  it("answers 503 database_not_migrated, and names the database rather than the price feed", async () => {
    const { keys, initiated, pending } = await setUp();
    // Test-mode quotes come from the test_rates table: a missing table is the database's fault.
    await t.db.$executeRawUnsafe("ALTER TABLE test_rates RENAME TO test_rates_away");
    try {
      const res = await t.post(`/v1/transaction/${initiated}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: "database_unavailable", reason: "database_not_migrated" });
      expect(res.body.message).toMatch(/schema/);
    } finally {
      await t.db.$executeRawUnsafe("ALTER TABLE test_rates_away RENAME TO test_rates");
    }
    await t.db.$executeRawUnsafe("ALTER TABLE transactions RENAME TO transactions_away");
    try {
      const res = await t.post(`/v1/transaction/${pending}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: "database_unavailable", reason: "database_not_migrated" });
    } finally {
      await t.db.$executeRawUnsafe("ALTER TABLE transactions_away RENAME TO transactions");
    }
  });

  it("is not ready while migrations are missing, as after the database was dropped and made again", async () => {
    await setUp();
    expect(await (await fetch(`${t.url}/readyz`)).json()).toEqual({ status: "ok", database: "ok", migrations: "applied" });
    await t.db.$executeRawUnsafe("ALTER TABLE _prisma_migrations RENAME TO _prisma_migrations_away");
    try {
      const res = await fetch(`${t.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { pending: string[] };
      expect(body).toMatchObject({ status: "error", database: "ok", migrations: "missing" });
      expect(body.pending.length).toBeGreaterThan(0);
    } finally {
      await t.db.$executeRawUnsafe("ALTER TABLE _prisma_migrations_away RENAME TO _prisma_migrations");
    }
    await t.db.$executeRawUnsafe(
      "UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations)",
    );
    const rolledBack = await (await fetch(`${t.url}/readyz`)).json();
    expect(rolledBack).toMatchObject({ migrations: "missing", pending: [expect.any(String)] });
  });
});

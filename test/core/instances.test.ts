// Several service instances on one database: every initiate gets its own derivation index and address.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PaymentGateway, systemClock } from "../../src/core/gateway.ts";
import { Credentials } from "../../src/core/credentials.ts";
import { SecretBox } from "../../src/core/secrets.ts";
import { createAdapterFactory, type DatabaseAdapter } from "../../src/db/adapters.ts";
import { openDatabaseOn } from "../../src/db/database.ts";
import { prismaStores } from "../../src/db/stores/index.ts";
import type { Database } from "../../src/db/types.ts";
import { PngQrRenderer } from "../../src/rails/qr/index.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { fixedFeeds } from "../support/gateway.ts";
import { createTestDatabase, type TestDatabase } from "../support/test-database.ts";
import { initializeBody } from "../support/builders.ts";

let testDb: TestDatabase;
const extraAdapters: DatabaseAdapter[] = [];
const clients: Database[] = [];
let gateways: PaymentGateway[];

beforeAll(async () => {
  testDb = await createTestDatabase();
  const secrets = new SecretBox(randomBytes(32));
  // On PostgreSQL each instance has its own connection pool; PGlite is one process's database, so its
  // instances share the engine (and the test shows the rule holds there too).
  const factories = [testDb.factory];
  if (testDb.url) {
    const second = await createAdapterFactory({ kind: "postgres", url: testDb.url, poolMax: 5 });
    extraAdapters.push(second);
    factories.push(second.factory);
  } else {
    factories.push(testDb.factory);
  }
  gateways = [];
  for (const factory of factories) {
    const { db } = await openDatabaseOn({ factory, close: async () => {} }, { migrate: false });
    clients.push(db);
    const stores = prismaStores(db);
    gateways.push(
      new PaymentGateway({
        stores,
        credentials: new Credentials(stores.credentials),
        prices: fixedFeeds(),
        rails: new HdWalletRails(),
        qr: new PngQrRenderer(),
        clock: systemClock,
        secrets,
      }),
    );
  }
});
afterAll(async () => {
  for (const client of clients) await client.$disconnect();
  for (const adapter of extraAdapters) await adapter.close();
  await testDb.close();
});

it("hands out each index once across instances initiating at the same time", async () => {
  const [a, b] = gateways as [PaymentGateway, PaymentGateway];
  const m = await a.operator.createMerchant({ name: "Busy" });
  const ids: string[] = [];
  for (let i = 0; i < 16; i++) {
    const { transaction: t } = await a.payments.initializeTransaction({
      bearerToken: m.testPublicKey,
      body: initializeBody({ customer: { email: `c${i}@example.com` }, amount: "10" }),
    });
    ids.push(t.id);
  }
  const results = await Promise.all(
    ids.map(async (id, i) => {
      const initiated = await (i % 2 ? a : b).payments.initiatePayment({
        bearerToken: m.testSecretKey,
        transactionId: id,
        body: { currency_id: "4" },
      });
      return initiated.transaction;
    }),
  );
  const indexes = results.map((t) => t.derivationIndex).sort((x, y) => (x ?? 0) - (y ?? 0));
  expect(indexes).toEqual(Array.from({ length: 16 }, (_, i) => i));
  expect(new Set(results.map((t) => t.paymentAddress)).size).toBe(16);
  const wallet = await clients[0]!.wallet.findFirstOrThrow({ where: { merchantId: m.id, currencyId: 4, isLive: false } });
  expect(wallet.nextIndex).toBe(16);
});

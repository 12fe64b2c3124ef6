// The wiring of src/runtime.ts for wallets: with PAYGATE_ETH_TEST_CHAIN_ID / PAYGATE_BSC_TEST_CHAIN_ID,
// a test-mode payment's URI names that local chain, so a wallet on it (anvil's 31337) pays there.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startRuntime, type Runtime } from "../../src/runtime.ts";
import { createTestDatabase } from "../support/test-database.ts";
import { initializeBody } from "../support/builders.ts";

let runtime: Runtime;
let dataDir: string;
let closeDb = async () => {};

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "paygate-wallets-"));
  const env: Record<string, string | undefined> = {
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString("base64"),
    PAYGATE_ETH_TEST_CHAIN_ID: "31337",
    PAYGATE_BSC_TEST_CHAIN_ID: "31338",
  };
  if (process.env.DATABASE_URL) {
    const db = await createTestDatabase();
    env.DATABASE_URL = db.url ?? undefined;
    closeDb = db.close;
  }
  runtime = await startRuntime(loadConfig(env), { log: () => {} });
});
afterAll(async () => {
  await runtime?.close();
  await closeDb();
  rmSync(dataDir, { recursive: true, force: true });
});

it("hands out test-mode ETH and BNB payment URIs on the configured local chains", async () => {
  const { gateway } = runtime;
  const merchant = await gateway.operator.createMerchant({ name: "Local Chain Ltd" });
  const uris: string[] = [];
  for (const currencyId of ["6", "5"]) {
    const { transaction: initialized } = await gateway.payments.initializeTransaction({
      bearerToken: merchant.testPublicKey,
      idempotencyKey: undefined,
      body: initializeBody({ amount: "10" }),
    });
    const initiated = await gateway.payments.initiatePayment({
      bearerToken: merchant.testSecretKey,
      idempotencyKey: undefined,
      transactionId: initialized.id,
      body: { currency_id: currencyId },
    });
    uris.push(initiated.paymentRequest?.uri ?? "");
  }
  expect(uris[0]).toMatch(/^ethereum:0x[0-9a-fA-F]{40}@31337\?value=\d+$/);
  expect(uris[1]).toMatch(/^ethereum:0x[0-9a-fA-F]{40}@31338\?value=\d+$/);
});

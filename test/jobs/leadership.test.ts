// One payment watcher at a time per database: on PostgreSQL the holder of an advisory lock leads,
// and another instance takes over when it stops; the embedded database's one process always leads.
import { afterAll, beforeAll, expect, it } from "vitest";
import { PAYMENT_WATCHER_LOCK, PostgresLeadership, soleLeader, type Leadership } from "../../src/jobs/leadership.ts";
import { PaymentWatcher } from "../../src/jobs/payment-watcher.ts";
import { ChainWatchers } from "../../src/rails/chains/index.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { createTestDatabase, type TestDatabase } from "../support/test-database.ts";
import { startFakeEsplora, type FakeEsplora } from "../rails/chains/fake-esplora.ts";

let t: TestGateway;
let esplora: FakeEsplora;
let lockDb: TestDatabase | null = null;

beforeAll(async () => {
  t = await startTestGateway();
  esplora = await startFakeEsplora();
  if (process.env.DATABASE_URL) lockDb = await createTestDatabase();
  const keys = await t.merchant();
  const init = await t.post(
    "/v1/transaction",
    { customer: { email: "a@example.com" }, currency: "USD", amount: "5" },
    { authorization: `Bearer ${keys.testPublicKey}` },
  );
  const pay = await t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
  expect(pay.status).toBe(200);
});
afterAll(async () => {
  await t.close();
  await esplora.close();
  await lockDb?.close();
});

function watcher(leadership: Leadership): PaymentWatcher {
  const chains = new ChainWatchers({ timeoutMs: 1000, esplora: { BTC: { test: esplora.url }, LTC: {} }, evm: { ethereum: {}, bsc: {} } });
  const settings = { intervalMs: 1000, concurrency: 1, lateGraceMs: 0, requiredConfirmations: () => 2 };
  return new PaymentWatcher(t.gateway, chains, settings, () => {}, leadership);
}

it("lets one instance watch at a time, and another take over when it stops", async () => {
  const url = lockDb?.url;
  if (!url) {
    // The embedded database: one process, always the leader.
    expect(await soleLeader.isLeader()).toBe(true);
    expect((await watcher(soleLeader).tick()).watched).toBe(1);
    return;
  }
  const a = watcher(new PostgresLeadership(url, PAYMENT_WATCHER_LOCK));
  const b = watcher(new PostgresLeadership(url, PAYMENT_WATCHER_LOCK));
  try {
    expect((await a.tick()).watched).toBe(1);
    expect((await b.tick()).watched).toBe(0); // a holds the lock
    expect((await a.tick()).watched).toBe(1);
    await a.stop(); // its session ends, and the lock with it
    expect((await b.tick()).watched).toBe(1);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

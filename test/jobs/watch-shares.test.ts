// Instances share the payment watcher's addresses: each reads the part that a hash of the address
// gives its rank among the live instances (advisory-lock slots on PostgreSQL), and the others cover
// an instance's part as soon as it stops. The embedded database's one process reads everything.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { WatchShare } from "../../src/core/stores/transactions.ts";
import { PaymentWatcher } from "../../src/jobs/payment-watcher.ts";
import { SlotWatchShares, wholeWatchList, type WatchShares } from "../../src/core/transactions/watch-shares.ts";
import { PostgresWatchSlots, WATCHER_SLOTS_LOCK_CLASS } from "../../src/db/watch-slots.ts";
import { ChainWatchers } from "../../src/rails/chains/index.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { createTestDatabase, type TestDatabase } from "../support/test-database.ts";
import { startFakeEsplora, type FakeEsplora } from "../rails/chains/fake-esplora.ts";
import { initializeBody } from "../support/builders.ts";

const PENDING = 24;
let t: TestGateway;
let esplora: FakeEsplora;
let lockDb: TestDatabase | null = null;
const addresses: string[] = [];

beforeAll(async () => {
  t = await startTestGateway();
  esplora = await startFakeEsplora();
  if (process.env.DATABASE_URL) lockDb = await createTestDatabase();
  const keys = await t.merchant();
  for (let i = 0; i < PENDING; i++) {
    const init = await t.post("/v1/transaction", initializeBody({ customer: { email: `c${i}@example.com` }, amount: "5" }), {
      authorization: `Bearer ${keys.testPublicKey}`,
    });
    const pay = await t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
    expect(pay.status).toBe(200);
    addresses.push(pay.body.data.payment_address);
  }
});
afterAll(async () => {
  await t.close();
  await esplora.close();
  await lockDb?.close();
});

function watcher(shares: WatchShares): PaymentWatcher {
  const chains = new ChainWatchers({ timeoutMs: 1000, esplora: { BTC: { test: esplora.url }, LTC: {} }, evm: { ethereum: {}, bsc: {} } });
  const settings = { intervalMs: 1000, concurrency: 2, lateGraceMs: 0, requiredConfirmations: () => 2 };
  return new PaymentWatcher(t.gateway.payments, chains, settings, () => {}, shares);
}

/** The addresses one pass asked the node about, and the pass's report. */
async function pass(w: PaymentWatcher) {
  const before = esplora.requests.length;
  const report = await w.tick();
  const asked = new Set(
    esplora.requests
      .slice(before)
      .map((path) => /^\/address\/([^/]+)\/txs/.exec(path)?.[1])
      .filter((a): a is string => a !== undefined),
  );
  return { report, asked: [...asked].sort() };
}

it("splits the watch list by a hash of the address: the shares are disjoint and together the whole list", async () => {
  const whole = (await t.gateway.payments.watchList(0, 1000)).map((row) => row.paymentAddress).sort();
  expect(whole).toEqual([...addresses].sort());
  const parts = await Promise.all([0, 1, 2].map((index) => t.gateway.payments.watchList(0, 1000, { index, of: 3 })));
  const seen = parts.flat().map((row) => row.paymentAddress);
  expect(new Set(seen).size).toBe(seen.length);
  expect(seen.sort()).toEqual(whole);
  for (const part of parts) expect(part.length).toBeGreaterThan(0); // 24 addresses in 3 parts: none empty in practice
  // The same address always falls in the same share.
  expect((await t.gateway.payments.watchList(0, 1000, { index: 1, of: 3 })).map((r) => r.id)).toEqual(parts[1]?.map((r) => r.id));
});

it("refuses a share that is not an index below its count", () => {
  const bad: WatchShare[] = [
    { index: 2, of: 2 },
    { index: -1, of: 2 },
    { index: 0, of: 0 },
    { index: 0.5, of: 2 },
  ];
  for (const share of bad) expect(() => t.gateway.payments.watchList(0, 10, share)).toThrow(/A watch share is an index below its count/);
});

it("shares the addresses among live instances, and covers a dead or stopped instance's share at the next pass", async () => {
  const url = lockDb?.url;
  if (!url) {
    // The embedded database: one process, the whole list.
    const only = await pass(watcher(wholeWatchList));
    expect(only.report.share).toEqual({ index: 0, of: 1 });
    expect(only.asked).toEqual([...addresses].sort());
    return;
  }
  const a = watcher(new SlotWatchShares(new PostgresWatchSlots(url)));
  const b = watcher(new SlotWatchShares(new PostgresWatchSlots(url)));
  const all = [...addresses].sort();
  try {
    const alone = await pass(a); // b has no slot yet: a is the only instance
    expect(alone.report.share).toEqual({ index: 0, of: 1 });
    expect(alone.report.watched).toBe(PENDING);
    const second = await pass(b);
    const first = await pass(a);
    expect(second.report.share).toEqual({ index: 1, of: 2 });
    expect(first.report.share).toEqual({ index: 0, of: 2 });
    expect(first.report.watched + second.report.watched).toBe(PENDING);
    expect(first.asked.filter((address) => second.asked.includes(address))).toEqual([]);
    expect([...first.asked, ...second.asked].sort()).toEqual(all);

    // a's process dies as far as the database can tell: its session is ended from outside.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        // pg_locks is the server's: another file's watcher, in its own database, holds the same slot.
        `SELECT pg_terminate_backend(pid) FROM pg_locks
          WHERE locktype = 'advisory' AND objsubid = 2 AND objid = 0 AND classid = $1::int::oid
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [WATCHER_SLOTS_LOCK_CLASS],
      );
      expect(rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 200)); // the server frees the lock as the backend exits
    const takeover = await pass(b);
    expect(takeover.report.share).toEqual({ index: 0, of: 1 });
    expect(takeover.asked).toEqual(all);

    // a comes back: its next pass takes the lowest free slot again, and the list is split once more.
    let rejoined = await a.tick();
    if (rejoined.share === null) rejoined = await a.tick(); // the pass that found its connection gone
    expect(rejoined.share).toEqual({ index: 0, of: 2 });
    expect((await pass(b)).report.share).toEqual({ index: 1, of: 2 });

    await a.stop(); // a stop ends its session, and its slot with it
    const afterStop = await pass(b);
    expect(afterStop.report.share).toEqual({ index: 0, of: 1 });
    expect(afterStop.asked).toEqual(all);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

it("watches nothing, and says so once per failure, while its database connection is down", async () => {
  const lines: string[] = [];
  const shares = new SlotWatchShares(new PostgresWatchSlots("postgres://postgres@127.0.0.1:1/nowhere"), (line) => lines.push(line));
  const report = await watcher(shares).tick();
  expect(report).toEqual({ share: null, watched: 0, changed: 0, failed: 0 });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^payment watcher: its share of the watch list is unknown \(.+\); asking again at the next pass$/);
});

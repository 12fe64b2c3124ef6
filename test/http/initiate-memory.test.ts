// What an instance remembers between initialize and initiate (src/db/stores/initiate-memory.ts, issue 47),
// on with the credential cache: an initiate of a transaction this instance initialized, with the
// merchant's settings known, sends no read; its wallet's indexes are leased eight at a time. Checked
// here: no index is handed out twice and no gap grows past the slots; what another instance changes
// (a wallet, a move, the pricing) is seen by the move or within the cache's time; a change in this
// instance applies at once; the mode wall holds. Two instances on one database, PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { initializeBody } from "../support/builders.ts";
import { manualClock, type ManualClock } from "../support/clock.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const BTC = cryptoBySlug("BTC") as CryptoCurrency;
const USDT = cryptoBySlug("USDT") as CryptoCurrency;
// What an instance remembers lasts the credential cache's time, by the gateway's clock. The instances
// a and b keep it for a minute, so that a slow machine never sees it run out mid-test; what must run
// out does on an instance of its own whose clock the test moves (expiring).
const REMEMBERED_MS = 60_000;
const CACHE_MS = 1500;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
type Keys = Awaited<ReturnType<TestGateway["merchant"]>>;

let a: TestGateway;
let b: TestGateway;
beforeAll(async () => {
  a = await startTestGateway({ credentialCacheMs: REMEMBERED_MS });
  b = await startTestGateway({ sameDatabaseAs: a, credentialCacheMs: REMEMBERED_MS });
});
afterAll(async () => {
  await b.close();
  await a.close();
});

/** A third instance that remembers for CACHE_MS by a clock the test moves (stopped otherwise), closed after `use`. */
async function expiring(use: (c: TestGateway, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = manualClock();
  const c = await startTestGateway({ sameDatabaseAs: a, credentialCacheMs: CACHE_MS, clock });
  try {
    await use(c, clock);
  } finally {
    await c.close();
  }
}

async function initialize(gateway: TestGateway, keys: Keys, description = "Order"): Promise<string> {
  const res = await gateway.post("/v1/transaction", initializeBody({ amount: "100", description }), bearer(keys.testPublicKey));
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

const pay = (gateway: TestGateway, keys: Keys, id: string) =>
  gateway.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));

async function processorOf(keys: Keys) {
  return a.db.paymentProcessor.findUniqueOrThrow({
    where: { merchantId_currencyId_network_isLive: { merchantId: keys.id, currencyId: BTC.id, network: "bitcoin", isLive: false } },
  });
}

/** The wallet's indexes: held by transactions, unused in its slots (and how many are leased now), and the next one. */
async function indexesOf(walletId: number) {
  const wallet = await a.db.wallet.findUniqueOrThrow({ where: { id: walletId } });
  const used = await a.db.transaction.findMany({ where: { walletId }, select: { derivationIndex: true }, orderBy: { initiatedAt: "asc" } });
  const slots = await a.db.walletIndexSlot.findMany({ where: { walletId, derivationIndex: { not: null } }, orderBy: { derivationIndex: "asc" } });
  return {
    used: used.map((t) => t.derivationIndex ?? -1),
    unused: slots.map((s) => s.derivationIndex ?? -1),
    leased: slots.filter((s) => s.leasedUntil > new Date()).length,
    next: wallet.nextIndex,
  };
}

/** Every index below the next is a transaction's or unused in a slot, never both; at most 19 unused. */
function expectNoGap(indexes: Awaited<ReturnType<typeof indexesOf>>): void {
  expect([...indexes.used, ...indexes.unused].sort((x, y) => x - y)).toEqual(Array.from({ length: indexes.next }, (_, i) => i));
  expect(indexes.unused.length).toBeLessThanOrEqual(19);
}

describe("initiate with what the instance remembers", () => {
  it("leases a wallet's indexes eight at a time and hands them out lowest first, each once, without a gap", async () => {
    const keys = await a.merchant({ name: "Pooled" });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await initialize(a, keys));
    const addresses: string[] = [];
    for (const id of ids) {
      const res = await pay(a, keys, id);
      expect(res.status).toBe(200);
      addresses.push(res.body.data.payment_address as string);
    }
    expect(new Set(addresses).size).toBe(20);
    const { walletId } = await processorOf(keys);
    const indexes = await indexesOf(walletId ?? 0);
    expect(indexes.used).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // The first initiate read (the settings were not known yet) and leased 0 with its read; then 1–8, 9–16
    // and 17–24, eight at a time: five are still the instance's, leased, for its next initiates.
    expect(indexes.unused).toEqual([20, 21, 22, 23, 24]);
    expect(indexes.leased).toBe(5);
    expectNoGap(indexes);

    // Another instance takes the free slots, never the leased ones; this one goes on with its own.
    const there = await pay(b, keys, await initialize(b, keys));
    const here = await pay(a, keys, await initialize(a, keys));
    expect([there.status, here.status]).toEqual([200, 200]);
    const after = await indexesOf(walletId ?? 0);
    expect(after.used.slice(20)).toEqual([25, 20]);
    expectNoGap(after);
  });

  it("gives 60 concurrent initiates over two instances 60 different indexes, and 40 racing ones of one transaction one move", async () => {
    const keys = await a.merchant({ name: "Busy" });
    const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => initialize(i % 2 ? a : b, keys)));
    const results = await Promise.all(ids.map((id, i) => pay(i % 2 ? a : b, keys, id)));
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200));
    expect(new Set(results.map((r) => r.body.data.payment_address)).size).toBe(60);
    const { walletId } = await processorOf(keys);
    const indexes = await indexesOf(walletId ?? 0);
    expect(new Set(indexes.used).size).toBe(60);
    expectNoGap(indexes);

    const raced = await initialize(a, keys);
    const races = await Promise.all(Array.from({ length: 40 }, (_, i) => pay(i % 2 ? a : b, keys, raced)));
    expect(races.filter((r) => r.status === 200)).toHaveLength(1);
    expect(new Set(races.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body.reason}`))).toEqual(
      new Set(["422 transaction_not_initiated"]),
    );
    const after = await indexesOf(walletId ?? 0);
    expect(after.used).toHaveLength(61);
    expectNoGap(after);
  });

  it("sends no read for a transaction it initialized: what was written behind the API's back is not seen here, and is in another instance", async () => {
    const keys = await a.merchant({ name: "Remembered" });
    expect((await pay(a, keys, await initialize(a, keys))).status).toBe(200); // the merchant's settings, remembered
    const here = await initialize(a, keys, "As initialized");
    const there = await initialize(a, keys, "As initialized");
    await a.db.$executeRaw`UPDATE transactions SET description = 'Changed in the database' WHERE id IN (${here}, ${there})`;
    const remembered = await pay(a, keys, here);
    const read = await pay(b, keys, there);
    expect(remembered.status).toBe(200);
    expect(read.status).toBe(200);
    expect(remembered.body.data.description).toBe("As initialized");
    expect(read.body.data.description).toBe("Changed in the database");
  });

  it("answers an initiate from the remembered row as a read of that row answers: every field, decimals and dates exact", async () => {
    const keys = await a.merchant({ name: "Exact" });
    expect((await pay(a, keys, await initialize(a, keys))).status).toBe(200); // the merchant's settings, remembered
    const body = initializeBody({
      amount: "1234.56",
      description: 'Ünïcode "quoted" order',
      customer: { email: "Ada@Example.com", name: "Ada" },
      meta: { order: { id: 9, lines: [1, 2.5, "x"] }, empty: null },
      return_url: "https://shop.example/return?o=9",
      locale: "fr",
    });
    const made = await a.post("/v1/transaction", body, bearer(keys.testPublicKey));
    expect(made.status).toBe(201);
    const remembered = await pay(a, keys, made.body.data.id);
    expect(remembered.status).toBe(200);
    // b remembers nothing of it: its GET reads the row the move left.
    const read = await fetch(`${b.url}/v1/transaction/${made.body.data.id}`, { headers: bearer(keys.testSecretKey) });
    expect(read.status).toBe(200);
    // GET adds the refunds; each instance links the checkout on its own address.
    const readBody = (await read.json()) as { data: Record<string, unknown>; meta: unknown };
    const { refunds: _refunds, amount_refundable: _refundable, checkout_url, ...asRead } = readBody.data;
    expect(checkout_url).toBe(`${b.url}/checkout/${remembered.body.data.client_secret}`);
    expect(remembered.body.data).toEqual({ ...asRead, checkout_url: `${a.url}/checkout/${remembered.body.data.client_secret}` });
    expect(remembered.body.data).toMatchObject({ initialized_amount: 1234.56, description: 'Ünïcode "quoted" order', locale: "fr" });
    expect([remembered.body.meta, readBody.meta]).toEqual([body.meta, body.meta]);
  });

  it("refuses a transaction another instance moved as a read would, and gives the index it took to the next initiate", async () => {
    const keys = await a.merchant({ name: "Raced" });
    expect((await pay(a, keys, await initialize(a, keys))).status).toBe(200);
    const id = await initialize(a, keys);
    expect((await pay(b, keys, id)).status).toBe(200);
    const late = await pay(a, keys, id);
    expect(late.status).toBe(422);
    expect(late.body).toMatchObject({ status: "error", message: "The transaction is not initiated", reason: "transaction_not_initiated" });
    const { walletId } = await processorOf(keys);
    const before = await indexesOf(walletId ?? 0);
    const next = await pay(a, keys, await initialize(a, keys));
    expect(next.status).toBe(200);
    const after = await indexesOf(walletId ?? 0);
    // The refused initiate's index was the lowest the instance held: the next one takes it.
    expect(after.used.at(-1)).toBe(Math.min(...before.unused));
    expectNoGap(after);
  });

  it("pays to the new wallet when another instance replaced it, and frees the old wallet's leases", async () => {
    const keys = await a.merchant({ name: "Replaced" });
    // The first reads (and remembers the settings); the second leases eight and uses one.
    for (let i = 0; i < 2; i++) expect((await pay(a, keys, await initialize(a, keys))).status).toBe(200);
    const old = await processorOf(keys);
    expect((await indexesOf(old.walletId ?? 0)).leased).toBe(7);

    const key = new HdWalletRails().createTestWallet(BTC);
    await b.gateway.operator.updateMerchant(keys.id, { wallets: [{ currency: BTC, isLive: false, extendedPublicKey: key }] });
    const replaced = await processorOf(keys);
    expect(replaced.walletId).not.toBe(old.walletId);

    const id = await initialize(a, keys);
    const res = await pay(a, keys, id);
    expect(res.status).toBe(200);
    const row = await a.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ walletId: replaced.walletId, derivationIndex: 0 });
    expect(res.body.data.payment_address).toBe(new HdWalletRails().deriveAddress(BTC, false, key, 0));
    expect((await indexesOf(old.walletId ?? 0)).leased).toBe(0);
  });

  it("applies a pricing change made here to the next initiate, and one made in another instance within the cache's time", async () => {
    await expiring(async (c, clock) => {
      const keys = await a.merchant({ name: "Priced" });
      expect((await pay(c, keys, await initialize(c, keys))).status).toBe(200);
      expect((await c.post("/v1/merchant/pricing", { spread: "1.5" }, bearer(keys.liveSecretKey))).status).toBe(200);
      const here = await pay(c, keys, await initialize(c, keys));
      expect(here.status).toBe(200);
      expect(here.body.data.meta.quote).toMatchObject({ rate: "64025", spread_percent: "1.5" });

      expect((await b.post("/v1/merchant/pricing", { spread: "2" }, bearer(keys.liveSecretKey))).status).toBe(200);
      clock.advance(CACHE_MS + 100);
      const later = await pay(c, keys, await initialize(c, keys));
      expect(later.status).toBe(200);
      expect(later.body.data.meta.quote).toMatchObject({ rate: "63700", spread_percent: "2" });
    });
  });

  it("takes a read's index from the pool when the settings' time is over, and pays to a default another instance changed", async () => {
    await expiring(async (c, clock) => {
      const keys = await a.merchant({ name: "Hinted" });
      const usdt = (gateway: TestGateway, id: string) => gateway.post(`/v1/transaction/${id}/pay`, { currency_id: "3" }, bearer(keys.testSecretKey));
      // The first reads and leases 0; the second leases 1–8 and uses 1.
      for (let i = 0; i < 2; i++) expect((await pay(c, keys, await initialize(c, keys))).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await usdt(c, await initialize(c, keys))).body.data.payment_network).toBe("ethereum");
      const { walletId } = await processorOf(keys);
      expect((await b.post("/v1/merchant/pricing", { spread: "2" }, bearer(keys.liveSecretKey))).status).toBe(200);
      clock.advance(CACHE_MS + 100);
      // The settings are read again (the spread set elsewhere shows it); the index is the pool's lowest, not a new one.
      const read = await pay(c, keys, await initialize(c, keys));
      expect([read.status, read.body.data.meta.quote.spread_percent]).toEqual([200, "2"]);
      const indexes = await indexesOf(walletId ?? 0);
      expect(indexes.used).toEqual([0, 1, 2]);
      expect(indexes.unused).toEqual([3, 4, 5, 6, 7, 8]);
      expectNoGap(indexes);

      // Another instance makes BSC the default: the read's Ethereum lease goes back, and the payment is on BSC.
      const wallet = { currency: USDT, network: "bsc" as const, isLive: false, extendedPublicKey: new HdWalletRails().createTestWallet(USDT, "bsc") };
      await b.gateway.operator.updateMerchant(keys.id, { wallets: [wallet], defaultNetworks: [{ currency: USDT, network: "bsc", isLive: false }] });
      clock.advance(CACHE_MS + 100);
      const moved = await usdt(c, await initialize(c, keys));
      expect([moved.status, moved.body.data.payment_network]).toEqual([200, "bsc"]);
      const ethereum = await a.db.paymentProcessor.findUniqueOrThrow({
        where: { merchantId_currencyId_network_isLive: { merchantId: keys.id, currencyId: USDT.id, network: "ethereum", isLive: false } },
      });
      const ethereumIndexes = await indexesOf(ethereum.walletId ?? 0);
      expect(ethereumIndexes.used).toEqual([0, 1]);
      expectNoGap(ethereumIndexes);
    });
  });

  it("applies a default network set here to the next initiate, though the one before it was remembered", async () => {
    const keys = await a.merchant({ name: "Defaulted" });
    const usdt = (gateway: TestGateway, id: string) => gateway.post(`/v1/transaction/${id}/pay`, { currency_id: "3" }, bearer(keys.testSecretKey));
    for (let i = 0; i < 2; i++) {
      const before = await usdt(a, await initialize(a, keys));
      expect([before.status, before.body.data.payment_network]).toEqual([200, "ethereum"]);
    }
    const wallet = { currency: USDT, network: "bsc" as const, isLive: false, extendedPublicKey: new HdWalletRails().createTestWallet(USDT, "bsc") };
    await a.gateway.operator.updateMerchant(keys.id, { wallets: [wallet], defaultNetworks: [{ currency: USDT, network: "bsc", isLive: false }] });
    const after = await usdt(a, await initialize(a, keys));
    expect([after.status, after.body.data.payment_network]).toEqual([200, "bsc"]);
    // The Ethereum wallet's leases the instance held were freed with what it forgot.
    const ethereum = await a.db.paymentProcessor.findUniqueOrThrow({
      where: { merchantId_currencyId_network_isLive: { merchantId: keys.id, currencyId: USDT.id, network: "ethereum", isLive: false } },
    });
    expect(await a.db.walletIndexSlot.count({ where: { walletId: ethereum.walletId ?? 0, leasedUntil: { gt: new Date() } } })).toBe(0);
  });

  it("keeps the mode wall: a live key cannot initiate a test transaction this instance remembers", async () => {
    const keys = await a.merchant({ name: "Walled" });
    expect((await pay(a, keys, await initialize(a, keys))).status).toBe(200);
    const id = await initialize(a, keys);
    const res = await a.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.liveSecretKey));
    const read = await b.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.liveSecretKey));
    expect(res.status).toBe(404);
    expect(res.body).toEqual(read.body);
    expect((await a.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("INITIATED");
  });
});

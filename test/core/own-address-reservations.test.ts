// Unique amounts on a merchant's own TRON addresses (issue 40; core/own-addresses/reserve.ts) on a real
// database: payments initiated at once never share an amount on one address, a full set of addresses
// answers 503 naming it, and an amount is free again once its payment's window and late window closed.
// And an unmatched receipt two writers record at once (the idle scan and a payment's read) is one row;
// a setting's scan cursor starts when the mode is turned on and only moves forward.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaygateError } from "../../src/core/errors.ts";
import { Decimal } from "../../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { recordUnmatchedReceipt } from "../../src/core/own-addresses/matching.ts";
import { ownAddressFor } from "../../src/core/transactions/own-address.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { manualClock } from "../support/clock.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const N = 10;
const HOLD_MS = 3_600_000;
const WINDOW_MS = 15 * 60_000;
const clock = manualClock();
let t: TestGateway;
let merchantId: number;

beforeAll(async () => {
  t = await startTestGateway({ clock });
  merchantId = (await t.merchant()).id;
  await t.stores.ownAddresses.putSetting({ merchantId, network: "tron", isLive: false, addressCount: 2, updatedAt: clock.now() }, null);
});
afterAll(() => t?.close());

const deps = () => ({ stores: t.stores, rails: new HdWalletRails(), clock, ownAddresses: { maxExtraUnits: N, holdAfterWindowMs: HOLD_MS } });
const payment = (transactionId: string, isLive = false) => ({
  merchantId,
  isLive,
  network: "tron" as const,
  crypto: USDT,
  transactionId,
  amount: new Decimal("25"),
  expiresAt: new Date(clock.now().getTime() + WINDOW_MS),
});

describe("unique amounts on own addresses", () => {
  it("gives 20 payments initiated at once 20 different amounts (address, amount) within 1..N base units", async () => {
    const held = await Promise.all(Array.from({ length: 2 * N }, (_, i) => ownAddressFor(deps(), payment(`tx_${i}`))));
    const pairs = held.map((h) => `${h?.address} ${h?.amount.toFixed()}`);
    expect(new Set(pairs).size).toBe(2 * N);
    expect(new Set(held.map((h) => h?.address)).size).toBe(2);
    expect(new Set(held.map((h) => h?.index))).toEqual(new Set([0, 1]));
    for (const h of held) {
      const extra = h?.amount.minus(25).times(1_000_000);
      expect(extra?.isInteger() && extra.gte(1) && extra.lte(N)).toBe(true);
    }
  });

  it("answers 503 own_addresses_full when every amount of both addresses is held", async () => {
    const refused = await ownAddressFor(deps(), payment("tx_full")).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaygateError);
    expect([(refused as PaygateError).code, (refused as PaygateError).reason, (refused as PaygateError).message]).toEqual([
      "upstream_unavailable",
      "own_addresses_full",
      `Every unique amount of the merchant's 2 own USDT on TRON Nile testnet addresses is held by an open payment (${N} per address); retry once one closes, or raise the address count`,
    ]);
  });

  it("keeps the mode off for the live mode: a test setting gives a live payment no own address", async () => {
    expect(await ownAddressFor(deps(), payment("tx_live", true))).toBeNull();
  });

  it("frees an amount at once when its initiate fails, and every amount once the windows closed", async () => {
    await t.stores.ownAddresses.release("tx_3");
    expect(await ownAddressFor(deps(), payment("tx_again"))).not.toBeNull();
    await expect(ownAddressFor(deps(), payment("tx_still_full"))).rejects.toThrow("Every unique amount");
    // Still held one millisecond before the window and the late window end.
    clock.advance(WINDOW_MS + HOLD_MS - 1);
    await expect(ownAddressFor(deps(), payment("tx_not_yet"))).rejects.toThrow("Every unique amount");
    clock.advance(1);
    const after = await Promise.all(Array.from({ length: 2 * N - 1 }, (_, i) => ownAddressFor(deps(), payment(`tx_next_${i}`))));
    expect(new Set(after.map((h) => `${h?.address} ${h?.amount.toFixed()}`)).size).toBe(2 * N - 1);
  });
});

describe("an unmatched receipt two writers record at once", () => {
  it("is recorded once, with one event; the other writer hears it known (null), not an error", async () => {
    const place = { merchantId, isLive: false, network: "tron", address: "TIdleOwnAddressOfTheRaceTest000000", currencyId: USDT.id };
    const transfer = (i: number) => ({
      key: `${i.toString(16).padStart(64, "0")}:0`,
      txHash: i.toString(16).padStart(64, "0"),
      amount: new Decimal(`3.00000${i % 10}`),
      confirmations: 1,
      blockHeight: 500 + i,
    });
    // Many pairs, so that on PostgreSQL (a pool of connections) both writers of some pair pass the
    // check for a known row before either inserts; the embedded database runs them one after the other.
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const pair = await Promise.all([0, 1].map(() => recordUnmatchedReceipt({ stores: t.stores }, place, transfer(i), clock.now())));
        return pair.filter((r) => r !== null).length;
      }),
    );
    expect(results).toEqual(Array.from({ length: 20 }, () => 1));
    expect(await t.db.unmatchedReceipt.count({ where: { address: place.address } })).toBe(20);
    const receipts = await t.db.unmatchedReceipt.findMany({ where: { address: place.address }, select: { id: true } });
    const events = await t.db.webhookEvent.findMany({ where: { type: "settlement.unmatched_receipt.created" }, select: { subjectId: true } });
    expect(new Set(events.map((e) => e.subjectId))).toEqual(new Set(receipts.map((r) => r.id)));
    expect(events).toHaveLength(20);
  });
});

describe("a setting's scan cursor", () => {
  it("starts when the mode is turned on, stays through a change of k, only moves forward, and starts anew when the mode is turned on again", async () => {
    const own = (await t.merchant()).id;
    const at = (minutes: number) => new Date(Date.UTC(2026, 11, 1, 10, minutes));
    const store = t.stores.ownAddresses;
    const put = (k: number, minutes: number) =>
      store.putSetting({ merchantId: own, network: "tron", isLive: false, addressCount: k, updatedAt: at(minutes) }, null);
    const cursor = async () => {
      const s = await store.setting(own, "tron", false);
      return s && [s.addressCount, s.turnedOnAt.toISOString(), s.scannedFrom.toISOString()];
    };
    expect(await put(1, 0)).toMatchObject({ turnedOnAt: at(0), scannedFrom: at(0) });
    await put(3, 5);
    expect(await cursor()).toEqual([3, at(0).toISOString(), at(0).toISOString()]);
    await store.advanceScan(own, "tron", false, at(10));
    await store.advanceScan(own, "tron", false, at(7)); // a slower instance's older scan
    expect(await cursor()).toEqual([3, at(0).toISOString(), at(10).toISOString()]);
    expect((await store.allSettings()).filter((s) => s.merchantId === own).map((s) => s.scannedFrom)).toEqual([at(10)]);
    await store.removeSetting(own, "tron", false, null);
    await store.advanceScan(own, "tron", false, at(20)); // the setting is gone: nothing to move
    expect(await cursor()).toBeNull();
    await put(2, 30);
    expect(await cursor()).toEqual([2, at(30).toISOString(), at(30).toISOString()]);
  });
});

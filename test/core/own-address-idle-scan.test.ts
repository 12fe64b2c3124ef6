// The idle scan of own addresses (src/core/own-addresses/idle-scan.ts, issue 40) as a core use case, on
// an in-memory own-address store and a TRON chain a test pays into: a transfer to an own address with
// no payment watched becomes an unmatched receipt once, one an open amount holds is left to its payment,
// one mined before the mode was turned on is not the mode's, and the cursor moves only after a scan that
// read every address. The addresses are the real ones of a test key (HdWalletRails).
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { beforeEach, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { type CryptoCurrency, cryptoBySlug } from "../../src/core/money/currencies.ts";
import type { NetworkSlug } from "../../src/core/networks.ts";
import {
  type IdleScanChains,
  type IdleScanDeps,
  type IdleScanRead,
  SCAN_CATCH_UP_MS,
  scanOwnAddresses,
} from "../../src/core/own-addresses/idle-scan.ts";
import type { ObservedReceipt } from "../../src/core/ports.ts";
import type { OwnAddressSettingRecord, UnmatchedReceiptRecord } from "../../src/core/records/own-addresses.ts";
import type { OutboxEvent } from "../../src/core/records/events.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { deriveTronAddress, tronOwnChain } from "../../src/rails/wallets/tron.ts";
import { manualClock, type ManualClock } from "../support/clock.ts";
import { serializeKey } from "../support/hd-keys.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const TURNED_ON = new Date("2026-12-01T10:00:00Z");
const ALL = { index: 0, of: 1 };
const SETTINGS = { requiredConfirmations: () => 19 };
const MINUTE = 60_000;

type ScanStore = IdleScanDeps["stores"]["ownAddresses"];

/** The parts of the own-address store the scan uses, as src/db/stores/own-addresses.ts behaves. */
class MemoryOwnAddresses implements ScanStore {
  readonly settings: OwnAddressSettingRecord[] = [];
  readonly keys = new Map<number, string>();
  /** Open amounts: `address amount`. */
  readonly held = new Set<string>();
  /** Keys a payment recorded as its receipt. */
  readonly paid = new Set<string>();
  readonly unmatched: UnmatchedReceiptRecord[] = [];
  readonly events: OutboxEvent[] = [];
  /** When set, recording fails with it (the database is away). */
  failure: Error | null = null;

  async allSettings() {
    return this.settings.map((s) => ({ ...s }));
  }

  async advanceScan(merchantId: number, network: string, isLive: boolean, to: Date) {
    const s = this.settings.find((x) => x.merchantId === merchantId && x.network === network && x.isLive === isLive);
    if (s && s.scannedFrom < to) s.scannedFrom = to;
  }

  async walletKey(merchantId: number) {
    return this.keys.get(merchantId) ?? null;
  }

  async recordUnmatched(receipt: UnmatchedReceiptRecord, _now: Date, event: (r: UnmatchedReceiptRecord) => OutboxEvent) {
    if (this.failure) throw this.failure;
    const known = this.unmatched.find(
      (u) => u.network === receipt.network && u.isLive === receipt.isLive && u.address === receipt.address && u.key === receipt.key,
    );
    if (known) {
      known.confirmations = receipt.confirmations;
      known.blockHeight = receipt.blockHeight;
      return null;
    }
    if (this.held.has(`${receipt.address} ${receipt.amount.toFixed()}`) || this.paid.has(receipt.key)) return null;
    this.unmatched.push(receipt);
    this.events.push(event(receipt));
    return receipt;
  }
}

interface Transfer {
  key: string;
  amount: string;
  height: number;
  minedAt: Date;
}

/** A TRON node: transfers of USDT per address, a tip a test mines, and reads that fail by address. */
class TronChain implements IdleScanChains {
  tip = 1000;
  readonly transfers = new Map<string, Transfer[]>();
  readonly failing = new Set<string>();
  readonly unsupported = new Set<NetworkSlug>();
  readonly reads: { address: string; since: Date; minedAt: boolean | undefined }[] = [];

  pay(address: string, transfer: Omit<Transfer, "height"> & { height?: number }): void {
    this.transfers.set(address, [...(this.transfers.get(address) ?? []), { height: this.tip, ...transfer }]);
  }

  supports(_currency: CryptoCurrency, _isLive: boolean, network?: NetworkSlug): boolean {
    return network === undefined || !this.unsupported.has(network);
  }

  async receiptsTo(
    _currency: CryptoCurrency,
    _isLive: boolean,
    address: string,
    options: { since: Date; minedAt?: boolean },
  ): Promise<ObservedReceipt[]> {
    this.reads.push({ address, since: options.since, minedAt: options.minedAt });
    if (this.failing.has(address)) throw new Error("TRON JSON-RPC (nile.example): connection refused");
    return (this.transfers.get(address) ?? []).map((t) => ({
      key: t.key,
      txHash: t.key.split(":")[0] ?? null,
      amount: new Decimal(t.amount),
      confirmations: this.tip - t.height + 1,
      blockHeight: t.height,
      ...(options.minedAt ? { minedAt: t.minedAt } : {}),
    }));
  }
}

let store: MemoryOwnAddresses;
let chain: TronChain;
let clock: ManualClock;
let key: string;
let failed: IdleScanRead[];
const address = (index: number) => deriveTronAddress(tronOwnChain(false, key), index);

beforeEach(() => {
  store = new MemoryOwnAddresses();
  chain = new TronChain();
  clock = manualClock(TURNED_ON.getTime() + 5 * MINUTE);
  key = serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'"), "tpub");
  failed = [];
  store.keys.set(1, key);
  store.settings.push(setting(1));
});

function setting(merchantId: number, over: Partial<OwnAddressSettingRecord> = {}): OwnAddressSettingRecord {
  return {
    merchantId,
    network: "tron",
    isLive: false,
    addressCount: 2,
    updatedAt: TURNED_ON,
    turnedOnAt: TURNED_ON,
    scannedFrom: TURNED_ON,
    ...over,
  };
}

const scan = (share = ALL) =>
  scanOwnAddresses({ stores: { ownAddresses: store }, rails: new HdWalletRails(), clock }, chain, share, SETTINGS, {
    readFailed: (read) => failed.push(read),
  });
const minutesAfterOn = (m: number) => new Date(TURNED_ON.getTime() + m * MINUTE);

describe("the idle scan of own addresses", () => {
  it("makes a transfer to an own address with no payment watched an unmatched receipt once, with its event; later reads update its confirmations", async () => {
    chain.pay(address(1), { key: "aa:0", amount: "7.5", minedAt: minutesAfterOn(1) });
    expect(await scan()).toEqual({ settings: 1, read: 2, failed: 0, recorded: 1, storeError: null });
    expect(chain.reads.map((r) => [r.address, r.since, r.minedAt])).toEqual([
      [address(0), TURNED_ON, true],
      [address(1), TURNED_ON, true],
    ]);
    expect(store.unmatched).toEqual([
      expect.objectContaining({
        merchantId: 1,
        isLive: false,
        network: "tron",
        address: address(1),
        currencyId: USDT.id,
        key: "aa:0",
        txHash: "aa",
        logIndex: 0,
        blockHeight: 1000,
        confirmations: 1,
        state: "open",
      }),
    ]);
    expect(store.unmatched[0]?.amount.toFixed()).toBe("7.5");
    expect(store.events.map((e) => [e.type, e.subjectId])).toEqual([["settlement.unmatched_receipt.created", store.unmatched[0]?.id]]);

    chain.tip += 2;
    clock.advance(MINUTE);
    expect(await scan()).toMatchObject({ read: 2, recorded: 0 });
    expect(store.unmatched.map((u) => [u.key, u.confirmations])).toEqual([["aa:0", 3]]);
    expect(store.events).toHaveLength(1);
  });

  it("leaves a transfer of an amount an open payment holds to that payment, and one a payment recorded", async () => {
    store.held.add(`${address(0)} 25.000001`);
    chain.pay(address(0), { key: "bb:0", amount: "25.000001", minedAt: minutesAfterOn(2) });
    chain.pay(address(0), { key: "bb:1", amount: "25.000002", minedAt: minutesAfterOn(2) });
    store.paid.add("bb:1");
    expect(await scan()).toMatchObject({ read: 2, recorded: 0 });
    expect(store.unmatched).toEqual([]);
  });

  it("does not make a transfer mined before the mode was turned on an unmatched receipt, though the read finds it", async () => {
    chain.pay(address(0), { key: "cc:0", amount: "3", minedAt: new Date(TURNED_ON.getTime() - 10 * MINUTE) });
    // Blocks tell whole seconds: one mined in the second the mode was turned on counts as after.
    chain.pay(address(0), { key: "cc:1", amount: "4", minedAt: new Date(TURNED_ON.getTime()) });
    store.settings[0] = setting(1, { turnedOnAt: new Date(TURNED_ON.getTime() + 400), scannedFrom: new Date(TURNED_ON.getTime() + 400) });
    expect(await scan()).toMatchObject({ read: 2, recorded: 1 });
    expect(store.unmatched.map((u) => u.key)).toEqual(["cc:1"]);
  });

  it("keeps the cursor when a read fails, reads that stretch again, and moves it to the scan's start once every address was read", async () => {
    chain.failing.add(address(1));
    chain.pay(address(1), { key: "dd:0", amount: "9", minedAt: minutesAfterOn(3) });
    expect(await scan()).toEqual({ settings: 1, read: 1, failed: 1, recorded: 0, storeError: null });
    expect(failed.map((r) => [r.merchantId, r.address, r.network, r.isLive, r.currency.slug])).toEqual([[1, address(1), "tron", false, "USDT"]]);
    expect(store.settings[0]?.scannedFrom).toEqual(TURNED_ON);

    chain.failing.clear();
    clock.advance(MINUTE);
    const cleanScanStart = clock.now();
    chain.reads.length = 0;
    expect(await scan()).toMatchObject({ read: 2, failed: 0, recorded: 1 });
    expect(chain.reads.map((r) => r.since)).toEqual([TURNED_ON, TURNED_ON]);
    expect(store.settings[0]?.scannedFrom).toEqual(cleanScanStart);

    clock.advance(MINUTE);
    chain.reads.length = 0;
    await scan();
    expect(chain.reads.map((r) => r.since)).toEqual([cleanScanStart, cleanScanStart]);
    expect(store.unmatched.map((u) => u.key)).toEqual(["dd:0"]);
  });

  it("keeps the cursor when the store fails to record, and goes on with the other settings", async () => {
    store.keys.set(2, serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'"), "tpub"));
    store.settings.push(setting(2, { addressCount: 1 }));
    chain.pay(address(0), { key: "ee:0", amount: "1", minedAt: minutesAfterOn(1) });
    store.failure = new Error("the database is away");
    const outcome = await scan();
    // Merchant 1's scan stops at the failed record (its second address is read at the next scan); merchant 2's goes on.
    expect([outcome.settings, outcome.read, (outcome.storeError?.error as Error | undefined)?.message]).toEqual([2, 2, "the database is away"]);
    expect(store.settings.map((s) => [s.merchantId, s.scannedFrom.getTime() > TURNED_ON.getTime()])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it("reads a cursor older than the catch-up bound from 7 days ago", async () => {
    const longAgo = new Date(clock.now().getTime() - 30 * 24 * 3_600_000);
    store.settings[0] = setting(1, { turnedOnAt: longAgo, scannedFrom: longAgo });
    await scan();
    expect(SCAN_CATCH_UP_MS).toBe(7 * 24 * 3_600_000);
    expect(chain.reads.map((r) => r.since)).toEqual([0, 1].map(() => new Date(clock.now().getTime() - SCAN_CATCH_UP_MS)));
  });

  it("reads only the settings of its share's merchants, and none on a network no node reads (its cursor waits)", async () => {
    store.keys.set(2, serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'"), "tpub"));
    store.settings.push(setting(2, { addressCount: 1 }));
    expect(await scan({ index: 0, of: 2 })).toMatchObject({ settings: 1, read: 1 });
    expect(await scan({ index: 1, of: 2 })).toMatchObject({ settings: 1, read: 2 });
    expect(chain.reads.map((r) => r.address)).toEqual([deriveTronAddress(tronOwnChain(false, store.keys.get(2) ?? ""), 0), address(0), address(1)]);

    chain.unsupported.add("tron");
    chain.reads.length = 0;
    clock.advance(MINUTE);
    const before = store.settings.map((s) => s.scannedFrom);
    expect(await scan()).toMatchObject({ settings: 0, read: 0 });
    expect(chain.reads).toEqual([]);
    expect(store.settings.map((s) => s.scannedFrom)).toEqual(before);
  });
});

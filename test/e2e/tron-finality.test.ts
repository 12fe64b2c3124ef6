// Finality per coin × network (issue 25): the service's payment watcher asks for a payment's finality
// depth on its own network. A SUCCESSFUL USDT payment on TRON is final once its block is solidified
// (19 blocks), not after Ethereum's 64 (USDT's default network): it leaves the watch list then.
// anvil with TRON Nile's chain id stands for the Nile FullNode's JSON-RPC, as in tron-anvil.test.ts.
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { watchSettings } from "../../src/runtime.ts";
import type { Anvil } from "../support/anvil.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { payUsdt, startNileWithUsdt } from "./tron.ts";
import { startE2eService, type E2eService, type Transaction } from "./service.ts";

const REQUIRED = 3;
const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const BNB = cryptoBySlug("BNB") as CryptoCurrency;

let anvil: Anvil;
let service: E2eService;

beforeAll(async () => {
  anvil = await startNileWithUsdt();
  service = await startE2eService({ PAYGATE_TRON_TEST_RPC_URL: anvil.url, PAYGATE_CONFIRMATIONS_TRON: String(REQUIRED) }, []);
  const tronKey = serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'"), "tpub");
  await service.runtime.gateway.operator.updateMerchant(service.merchant.id, {
    wallets: [{ currency: USDT, network: "tron", isLive: false, extendedPublicKey: tronKey }],
  });
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
});

const finalAt = async (id: string) =>
  (await service.runtime.database.db.transaction.findUniqueOrThrow({ where: { id }, select: { finalAt: true } })).finalAt;

describe("the watcher's finality depth, per coin × network", () => {
  it("is the network's: USDT on TRON 19, on BNB Smart Chain 15, on Ethereum 64", () => {
    const settings = watchSettings(loadConfig({}));
    const finality = (coin: CryptoCurrency, network?: "ethereum" | "bsc" | "tron") => settings.finalityConfirmations?.(coin, network);
    expect([finality(USDT, "tron"), finality(USDT, "bsc"), finality(USDT, "ethereum"), finality(USDT), finality(BNB, "bsc")]).toEqual([
      19, 15, 64, 64, 15,
    ]);
  });

  it("lets a SUCCESSFUL USDT payment on TRON leave the watch list at 19 confirmations, not before", async () => {
    const init = await fetch(`${service.url}/v1/transaction`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.merchant.testPublicKey}`, "content-type": "application/json" },
      body: JSON.stringify({ customer: { email: "ada@example.com" }, currency: "USD", amount: "25" }),
    });
    const id = ((await init.json()) as { data: { id: string } }).data.id;
    const paid = await service.pay(id, { currency_id: String(USDT.id), network: "tron" });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const t0 = paid.body.data as Transaction;
    const units = BigInt(new Decimal(String(t0.payment_amount)).mul(1_000_000).toFixed(0)); // TRC-20 USDT: 6 decimals
    await payUsdt(anvil, t0.payment_address, units);
    await anvil.mine(REQUIRED - 1);
    await service.until(id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");

    await anvil.mine(18 - REQUIRED); // 18 confirmations: not yet solidified
    // The receipts and finality are recorded in one statement: when GET shows 18, final_at is decided.
    await service.until(id, (t) => t.receipts[0]?.confirmations === 18, "18 confirmations");
    expect(await finalAt(id)).toBeNull();

    await anvil.mine(1); // 19: final on TRON (Ethereum's depth would keep it watched to 64)
    await service.until(id, (t) => t.receipts[0]?.confirmations === 19, "19 confirmations");
    expect(await finalAt(id)).toBeInstanceOf(Date);
  });
});

// Wallets per network on the dashboard's API (issue 25): the networks each coin is paid on come from
// the service's table (no list of the page's own), a USDT wallet is set on BNB Smart Chain beside the
// Ethereum one, its preview derives that network's addresses, and a network that does not carry the
// coin is refused naming the allowed ones, nothing changed.
import { describe, expect, it } from "vitest";
import { signedInAs, type DashboardClient } from "../support/dashboard.ts";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { COIN_NETWORKS } from "../../src/core/networks.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";

const API = "/dashboard/api";
const USDT = cryptoBySlug("USDT") as CryptoCurrency;
let t: TestGateway;
let merchant: NewMerchant;
let owner: DashboardClient;
gatewayAndReceiverForFile(async (started) => {
  ({ t } = started);
  merchant = await t.merchant({ name: "Networks Pages" });
  owner = await signedInAs(t, merchant.id, "owner");
});

describe("wallets per network", () => {
  it("lists every coin × network of the table with its name in the mode", async () => {
    const test = await owner.get(`${API}/networks?mode=test`);
    expect(test.status).toBe(200);
    expect(test.body.data.map((n: { currency: string; network: string }) => `${n.currency}:${n.network}`)).toEqual(
      COIN_NETWORKS.map((r) => `${r.coin}:${r.network}`),
    );
    expect(test.body.data[1]).toEqual({ currency: "USDT", network: "bsc", network_name: "BNB Smart Chain testnet", standard: "BEP-20" });
    expect((await owner.get(`${API}/networks?mode=live`)).body.data[1].network_name).toBe("BNB Smart Chain");
  });

  it("previews and sets a USDT wallet on bsc beside the Ethereum one; the list shows both", async () => {
    const key = new HdWalletRails().createTestWallet(USDT, "bsc");
    const preview = await owner.post(`${API}/wallets/preview?mode=test`, { currency: "USDT", network: "bsc", extended_public_key: key });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.data.network).toBe("bsc");
    expect(preview.body.data.addresses[0].address).toBe(new HdWalletRails().deriveAddress(USDT, false, key, 0, "bsc"));
    const set = await owner.request("PUT", `${API}/wallets/USDT?mode=test`, { network: "bsc", extended_public_key: key });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data).toMatchObject({ currency: "USDT", network: "bsc", network_name: "BNB Smart Chain testnet", next_index: 0 });
    const list = await owner.get(`${API}/wallets?mode=test`);
    const usdt = list.body.data.filter((w: { currency: string }) => w.currency === "USDT");
    expect(usdt.map((w: { network: string; network_name: string }) => [w.network, w.network_name])).toEqual([
      ["ethereum", "Ethereum Sepolia testnet"],
      ["bsc", "BNB Smart Chain testnet"],
      // A new merchant's own test wallets on USDT's other networks (issue 43).
      ["tron", "TRON Nile testnet"],
      ["polygon", "Polygon Amoy testnet"],
      ["arbitrum", "Arbitrum Sepolia testnet"],
    ]);
    expect(usdt[0].extended_public_key).not.toBeNull();
  });

  it("refuses a network that does not carry the coin, naming the allowed ones; nothing changes", async () => {
    const key = new HdWalletRails().createTestWallet(USDT);
    const before = await t.db.wallet.count({ where: { merchantId: merchant.id } });
    const answer = await owner.request("PUT", `${API}/wallets/USDT?mode=test`, { network: "litecoin", extended_public_key: key });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      status: "error",
      reason: "invalid_merchant_settings",
      message: "network must be one of ethereum, bsc, tron, polygon, arbitrum for USDT (got 'litecoin')",
    });
    const wrongType = await owner.request("PUT", `${API}/wallets/USDT?mode=test`, { network: 56, extended_public_key: key });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toBe("network must be a string");
    expect(await t.db.wallet.count({ where: { merchantId: merchant.id } })).toBe(before);
  });
});

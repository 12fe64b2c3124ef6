// Issue 42: one address never receives for two obligations. With one key for ETH and USDT, ETH order
// #k and USDT order #k shared an address, and the ETH a merchant sent there for a USDT refund's gas
// was counted as the ETH order's payment; USDT on bsc and on ethereum on one key leased the same
// address and every initiate answered 500. Two EVM wallets of one merchant and mode on one account
// key are now refused when set, whatever the door, and nothing is changed.
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaygateError } from "../../src/core/errors.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import type { NetworkSlug } from "../../src/core/networks.ts";
import { signedInAs } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { serializeKey } from "../support/hd-keys.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const coin = (slug: string) => cryptoBySlug(slug) as CryptoCurrency;
const evmAccount = (account = 0) => HDKey.fromMasterSeed(randomBytes(32)).derive(`m/44'/60'/${account}'`);
const wallet = (slug: string, key: string, network?: NetworkSlug, isLive = false) => ({
  currency: coin(slug),
  isLive,
  extendedPublicKey: key,
  ...(network === undefined ? {} : { network }),
});

/** The merchant's wallets as stored, for "nothing changed". */
const walletsOf = async (merchantId: number) =>
  JSON.stringify(
    await t.db.paymentProcessor.findMany({
      where: { merchantId },
      select: { currencyId: true, network: true, isLive: true, wallet: { select: { extendedPublicKey: true } } },
      orderBy: [{ isLive: "asc" }, { currencyId: "asc" }, { network: "asc" }],
    }),
  );

async function refused(merchantId: number, wallets: ReturnType<typeof wallet>[], message: string): Promise<void> {
  const before = await walletsOf(merchantId);
  const error = await t.gateway.operator.updateMerchant(merchantId, { wallets }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PaygateError);
  expect(error).toMatchObject({ code: "validation_error", message });
  expect(await walletsOf(merchantId)).toBe(before);
}

const clash = (what: string, other: string) =>
  `${what}: this key is already the ${other}. An EVM address is the same on every EVM network, so both would hand out the same addresses and a payment (or a refund's gas) to one could be counted for the other's order; give each coin and network an account of its own (m/44'/60'/0', m/44'/60'/1', …)`;

describe("two EVM wallets of one merchant and mode on one key", () => {
  it("refuses USDT on the ETH wallet's key (the refund gas case), and USDT on bsc on USDT on ethereum's (the 500 case)", async () => {
    const keys = await t.merchant({ name: "Shared Keys Ltd" });
    const eth = serializeKey(evmAccount(), "tpub");
    await t.gateway.operator.updateMerchant(keys.id, { wallets: [wallet("ETH", eth)] });
    await refused(keys.id, [wallet("USDT", eth)], clash("USDT wallet on ethereum (test mode)", "ETH wallet on ethereum (test mode)"));

    const usdt = serializeKey(evmAccount(1), "tpub");
    await t.gateway.operator.updateMerchant(keys.id, { wallets: [wallet("USDT", usdt)] });
    await refused(keys.id, [wallet("USDT", usdt, "bsc")], clash("USDT wallet on bsc (test mode)", "USDT wallet on ethereum (test mode)"));
    // BNB and USDT on bsc in one change.
    const bsc = serializeKey(evmAccount(2), "tpub");
    await refused(
      keys.id,
      [wallet("BNB", bsc), wallet("USDT", bsc, "bsc")],
      clash("BNB wallet on bsc (test mode)", "USDT wallet on bsc (test mode)"),
    );
  });

  it("sees one key in its xpub and tpub forms", async () => {
    const keys = await t.merchant({ name: "Two Forms Ltd" });
    const account = evmAccount();
    await t.gateway.operator.updateMerchant(keys.id, { wallets: [wallet("ETH", serializeKey(account, "tpub"))] });
    await refused(
      keys.id,
      [wallet("BNB", serializeKey(account, "xpub"))],
      clash("BNB wallet on bsc (test mode)", "ETH wallet on ethereum (test mode)"),
    );
  });

  it("accepts what cannot meet: accounts of their own, one coin set again, the other mode, UTXO coins on one key", async () => {
    const keys = await t.merchant({ name: "Apart Ltd" });
    const eth = serializeKey(evmAccount(0), "tpub");
    const usdt = serializeKey(evmAccount(1), "tpub");
    await t.gateway.operator.updateMerchant(keys.id, { wallets: [wallet("ETH", eth), wallet("USDT", usdt)] });
    // One wallet set again with its own key.
    await t.gateway.operator.updateMerchant(keys.id, { wallets: [wallet("ETH", eth)] });
    const live = serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'"), "xpub");
    await t.gateway.operator.updateMerchant(keys.id, {
      wallets: [
        wallet("ETH", live, undefined, true),
        wallet("ETH", serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'"), "tpub")),
      ],
    });
    const utxo = serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/84'/1'/0'"), "vpub");
    await t.gateway.operator.updateMerchant(keys.id, { wallets: [wallet("BTC", utxo), wallet("LTC", utxo)] });
    const stored = JSON.parse(await walletsOf(keys.id)) as {
      currencyId: number;
      network: string;
      isLive: boolean;
      wallet: { extendedPublicKey: string };
    }[];
    // USDT's test wallet on its default network (a new merchant has one on each of its networks, issue 43).
    expect(stored.find((p) => p.currencyId === coin("USDT").id && p.network === "ethereum" && !p.isLive)?.wallet.extendedPublicKey).toBe(usdt);
    expect(stored.filter((p) => p.wallet.extendedPublicKey === utxo)).toHaveLength(2);
  });

  it("the dashboard answers the same refusal with 400, nothing changed", async () => {
    const keys = await t.merchant({ name: "Dashboard Shared Ltd" });
    const owner = await signedInAs(t, keys.id, "owner");
    const eth = serializeKey(evmAccount(), "tpub");
    expect((await owner.request("PUT", "/dashboard/api/wallets/ETH?mode=test", { extended_public_key: eth })).status).toBe(200);
    const before = await walletsOf(keys.id);
    const res = await owner.request("PUT", "/dashboard/api/wallets/USDT?mode=test", { extended_public_key: eth, network: "bsc" });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(clash("USDT wallet on bsc (test mode)", "ETH wallet on ethereum (test mode)"));
    expect(await walletsOf(keys.id)).toBe(before);
  });
});

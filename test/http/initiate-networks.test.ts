// Networks per coin (issue 25) through REST and GraphQL: initiate takes an optional `network`, the
// reply, the stored row and the webhook name it, the payment URI is the network's (EIP-681 with its
// chain id, amounts in the token's own decimals), a network that does not carry the coin is a 400
// naming the allowed ones, one the merchant has no wallet for a 404; paymentOptions lists coin × network.
import { GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { USDT_BSC_TESTNET_CONTRACT, USDT_SEPOLIA_CONTRACT } from "../../src/core/networks.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { decodeQr } from "../support/qr.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let bscKey: string;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Networks Ltd" });
  bscKey = new HdWalletRails().createTestWallet(USDT, "bsc");
  await t.gateway.operator.updateMerchant(keys.id, { wallets: [{ currency: USDT, network: "bsc", isLive: false, extendedPublicKey: bscKey }] });
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function initialize(): Promise<string> {
  const res = await t.post("/v1/transaction", { customer: { email: "ada@example.com" }, currency: "USD", amount: "100" }, bearer(keys.testPublicKey));
  expect(res.status).toBe(201);
  return res.body.data.id;
}
const pay = (id: string, body: unknown) => t.post(`/v1/transaction/${id}/pay`, body, bearer(keys.testSecretKey));
/** The token units of a decimal amount with `decimals` places, exactly. */
const units = (amount: number, decimals: number) => new Decimal(String(amount)).times(new Decimal(10).pow(decimals)).toFixed(0);

describe("REST initiate with a network", () => {
  it("without one pays USDT on Ethereum, as before: an ERC-20 URI of Sepolia in 6-decimal units", async () => {
    const id = await initialize();
    const res = await pay(id, { currency_id: "3" });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.payment_network).toBe("ethereum");
    expect(data.payment_network_name).toBe("Ethereum Sepolia testnet");
    expect(data.amount_owed).toBe(data.payment_amount);
    expect(data.payment_uri).toBe(
      `ethereum:${USDT_SEPOLIA_CONTRACT}@11155111/transfer?address=${data.payment_address}&uint256=${units(data.payment_amount, 6)}`,
    );
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).paymentNetwork).toBe("ethereum");
  });

  it("on bsc hands out the BSC wallet's address and asks for the BEP-20 in 18-decimal units on chain 97; the row and the webhook name it", async () => {
    const id = await initialize();
    const res = await pay(id, { currency_id: "3", network: "bsc" });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.payment_network).toBe("bsc");
    expect(data.payment_network_name).toBe("BNB Smart Chain testnet");
    expect(data.payment_address).toBe(new HdWalletRails().deriveAddress(USDT, false, bscKey, 0, "bsc"));
    const uri = `ethereum:${USDT_BSC_TESTNET_CONTRACT}@97/transfer?address=${data.payment_address}&uint256=${units(data.payment_amount, 18)}`;
    expect(data.payment_uri).toBe(uri);
    expect((await decodeQr(data.qrCode)).text).toBe(uri);
    const row = await t.db.transaction.findUniqueOrThrow({ where: { id }, include: { wallet: true } });
    expect(row.paymentNetwork).toBe("bsc");
    expect(row.wallet?.network).toBe("bsc");
    const events = await t.db.webhookEvent.findMany({ where: { transactionId: id }, orderBy: { seq: "asc" } });
    const payloads = events.map((e) => JSON.parse(e.body).data.transaction);
    expect(payloads.map((p) => [p.payment_network, p.payment_network_name])).toEqual([
      [null, null],
      ["bsc", "BNB Smart Chain testnet"],
    ]);
  });

  it("refuses a network that does not carry the coin with a 400 naming the allowed ones; nothing changes", async () => {
    const id = await initialize();
    for (const network of ["bitcoin", "solana"]) {
      const res = await pay(id, { currency_id: "3", network });
      expect(res.status, network).toBe(400);
      expect(res.body.errors).toEqual([
        { field: "network", message: `network must be one of ethereum, bsc, tron, polygon, arbitrum for USDT (got '${network}')` },
      ]);
    }
    const res = await pay(id, { currency_id: "4", network: "ethereum" });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "network", message: "network must be one of bitcoin for BTC (got 'ethereum')" }]);
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("INITIATED");
  });

  it("pays on tron at once in test mode: a new merchant has a test wallet on every network (issue 43)", async () => {
    const id = await initialize();
    const res = await pay(id, { currency_id: "3", network: "tron" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.payment_network).toBe("tron");
    expect(res.body.data.payment_address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });

  it("refuses a refund address that is the token contract of the chosen network", async () => {
    const id = await initialize();
    const res = await pay(id, { currency_id: "3", network: "bsc", refund_address: USDT_BSC_TESTNET_CONTRACT });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "refund_address", message: "refund_address is not a valid USDT address on bsc for test mode" }]);
  });
});

describe("wallets per network", () => {
  it("refuses a USDT wallet on a network that does not carry USDT", async () => {
    await expect(
      t.gateway.operator.updateMerchant(keys.id, { wallets: [{ currency: USDT, network: "bitcoin", isLive: false, extendedPublicKey: bscKey }] }),
    ).rejects.toThrow("USDT is paid on ethereum, bsc, tron, polygon, arbitrum, not bitcoin");
  });
});

describe("GraphQL", () => {
  const gql = (token: string) => new GraphQLClient(`${t.url}/graphql`, { headers: bearer(token) });

  it("paymentOptions lists USDT once per network the merchant has a wallet for, with its name and fee level", async () => {
    const id = await initialize();
    const data = await gql(keys.testSecretKey).request<{
      paymentOptions: {
        options: {
          currency: { slug: string };
          network: { slug: string; name: string; standard: string | null; chainId: number | null };
          feeLevel: string;
          feeCoin: string;
          amount: string;
        }[];
      };
    }>(
      `query($id: ID!) { paymentOptions(transactionId: $id) { options { currency { slug } network { slug name standard chainId } feeLevel feeCoin amount } } }`,
      { id },
    );
    const usdt = data.paymentOptions.options.filter((o) => o.currency.slug === "USDT");
    expect(usdt.map((o) => ({ network: o.network, feeLevel: o.feeLevel, feeCoin: o.feeCoin }))).toEqual([
      { network: { slug: "ethereum", name: "Ethereum Sepolia testnet", standard: "ERC-20", chainId: 11155111 }, feeLevel: "HIGH", feeCoin: "ETH" },
      { network: { slug: "bsc", name: "BNB Smart Chain testnet", standard: "BEP-20", chainId: 97 }, feeLevel: "LOW", feeCoin: "BNB" },
      { network: { slug: "tron", name: "TRON Nile testnet", standard: "TRC-20", chainId: null }, feeLevel: "LOW", feeCoin: "TRX" },
      { network: { slug: "polygon", name: "Polygon Amoy testnet", standard: "ERC-20", chainId: 80002 }, feeLevel: "LOW", feeCoin: "POL" },
      { network: { slug: "arbitrum", name: "Arbitrum Sepolia testnet", standard: "ERC-20", chainId: 421614 }, feeLevel: "LOW", feeCoin: "ETH" },
    ]);
    expect(usdt[0]?.amount).toBe(usdt[1]?.amount);
    expect(data.paymentOptions.options.map((o) => `${o.currency.slug}:${o.network.slug}`)).toEqual([
      "USDT:ethereum",
      "USDT:bsc",
      "USDT:tron",
      "USDT:polygon",
      "USDT:arbitrum",
      "BTC:bitcoin",
      "BNB:bsc",
      "ETH:ethereum",
      "LTC:litecoin",
      "USDC:ethereum",
      "USDC:base",
      "USDC:polygon",
      "USDC:arbitrum",
      "USDC:bsc",
    ]);
  });

  it("paymentOptions lists the merchant's default network of the mode first for each coin, then the table's order", async () => {
    const other = await t.merchant({ name: "Defaults Ltd" });
    const rails = new HdWalletRails();
    await t.gateway.operator.updateMerchant(other.id, {
      wallets: [
        { currency: USDT, network: "bsc", isLive: false, extendedPublicKey: rails.createTestWallet(USDT, "bsc") },
        { currency: USDT, network: "tron", isLive: false, extendedPublicKey: rails.createTestWallet(USDT, "tron") },
      ],
    });
    const usdtOrder = async () => {
      const res = await t.post(
        "/v1/transaction",
        { customer: { email: "ada@example.com" }, currency: "USD", amount: "100" },
        bearer(other.testPublicKey),
      );
      expect(res.status).toBe(201);
      const data = await gql(other.testSecretKey).request<{
        paymentOptions: { options: { currency: { slug: string }; network: { slug: string } }[] };
      }>(`query($id: ID!) { paymentOptions(transactionId: $id) { options { currency { slug } network { slug } } } }`, { id: res.body.data.id });
      return data.paymentOptions.options.filter((o) => o.currency.slug === "USDT").map((o) => o.network.slug);
    };
    expect(await usdtOrder()).toEqual(["ethereum", "bsc", "tron", "polygon", "arbitrum"]);
    await t.gateway.operator.updateMerchant(other.id, { defaultNetworks: [{ currency: USDT, network: "tron", isLive: false }] });
    expect(await usdtOrder()).toEqual(["tron", "ethereum", "bsc", "polygon", "arbitrum"]);
    await t.gateway.operator.updateMerchant(other.id, { defaultNetworks: [{ currency: USDT, network: "bsc", isLive: false }] });
    expect(await usdtOrder()).toEqual(["bsc", "ethereum", "tron", "polygon", "arbitrum"]);
  });

  it("initiatePayment takes the network and the transaction shows it with the amount owed", async () => {
    const id = await initialize();
    const data = await gql(keys.testSecretKey).request<{
      initiatePayment: {
        paymentNetwork: { slug: string; name: string; chainId: number };
        amountOwed: string;
        paymentAmount: string;
        paymentUri: string;
      };
    }>(
      `mutation($id: ID!) { initiatePayment(transactionId: $id, input: { currencyId: "3", network: "bsc" }) {
        paymentNetwork { slug name chainId } amountOwed paymentAmount paymentUri } }`,
      { id },
    );
    expect(data.initiatePayment.paymentNetwork).toEqual({ slug: "bsc", name: "BNB Smart Chain testnet", chainId: 97 });
    expect(data.initiatePayment.amountOwed).toBe(data.initiatePayment.paymentAmount);
    expect(data.initiatePayment.paymentUri).toContain(`ethereum:${USDT_BSC_TESTNET_CONTRACT}@97/transfer?`);
  });

  it("initiatePayment refuses a network that does not carry the coin, naming the allowed ones", async () => {
    const id = await initialize();
    const error = await gql(keys.testSecretKey)
      .request(`mutation($id: ID!) { initiatePayment(transactionId: $id, input: { currencyId: "3", network: "litecoin" }) { id } }`, { id })
      .catch((e: unknown) => e as { response: { errors: { message: string; extensions: Record<string, unknown> }[] } });
    expect(JSON.stringify((error as { response: unknown }).response)).toContain(
      "network must be one of ethereum, bsc, tron, polygon, arbitrum for USDT (got 'litecoin')",
    );
  });
});

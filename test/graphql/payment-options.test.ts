// Checkout over GraphQL (issue 11): the client secret reads, prices and pays its one transaction;
// paymentOptions lists the merchant's coins with indicative amounts, a failing quote marking one unavailable.
import { HDKey } from "@scure/bip32";
import { hexToBytes } from "@noble/hashes/utils.js";
import { GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency, type FiatCurrency } from "../../src/core/money/currencies.ts";
import type { PriceFeed, PriceQuote } from "../../src/core/ports.ts";
import { TestRatesFeed } from "../../src/rails/prices/test-rates.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import {
  GetCheckoutDocument,
  InitializeCheckoutDocument,
  InitiateCheckoutDocument,
  PaymentOptionsDocument,
  type InitializeTransactionInput,
} from "./generated/operations.ts";
import { graphqlFailure } from "../support/graphql-errors.ts";

const ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const ETH_XPUB = serializeKey(HDKey.fromMasterSeed(hexToBytes("000102030405060708090a0b0c0d0e0f")).derive("m/44'/60'/0'"), "xpub");
const LTC_ZPUB = serializeKey(HDKey.fromMasterSeed(hexToBytes("0f0e0d0c0b0a09080706050403020100")).derive("m/84'/2'/0'"), "zpub");

/** The test rates, but the coins in `failing` have no price (a provider that lacks them, or times out). */
class PartlyFailingFeed implements PriceFeed {
  failing = new Set<string>();
  private readonly rates = new TestRatesFeed();
  quote(crypto: CryptoCurrency, fiat: FiatCurrency): Promise<PriceQuote> {
    if (this.failing.has(crypto.slug)) return Promise.reject(new Error(`no ${crypto.slug} market`));
    return this.rates.quote(crypto, fiat);
  }
}

const feed = new PartlyFailingFeed();
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let live: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  t = await startTestGateway({ prices: feed });
  keys = await t.merchant({ name: "Acme Stores" });
  const crypto = (slug: string) => cryptoBySlug(slug)!;
  live = await t.merchant({
    name: "Live Ltd",
    kyb: "VERIFIED",
    wallets: [
      { currency: crypto("BTC"), isLive: true, extendedPublicKey: ZPUB },
      { currency: crypto("ETH"), isLive: true, extendedPublicKey: ETH_XPUB },
      { currency: crypto("LTC"), isLive: true, extendedPublicKey: LTC_ZPUB },
    ],
  });
});
afterAll(() => t.close());

const client = (token?: string) => new GraphQLClient(`${t.url}/graphql`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const input = (extra: Partial<InitializeTransactionInput> = {}): InitializeTransactionInput => ({
  customer: { email: "ada@example.com", name: "Ada Obi" },
  currency: "USD",
  amount: "100",
  description: "Order #42",
  ...extra,
});

async function initialize(key = keys.testPublicKey, extra: Partial<InitializeTransactionInput> = {}) {
  const { initializeTransaction } = await client(key).request(InitializeCheckoutDocument, { input: input(extra) });
  return { id: initializeTransaction.id, secret: initializeTransaction.clientSecret!, checkoutUrl: initializeTransaction.checkoutUrl };
}

const failure = graphqlFailure;

const row = (id: string) => t.db.transaction.findUniqueOrThrow({ where: { id } });

describe("the client secret on GraphQL", () => {
  it("comes with initializeTransaction's reply, with the checkout URL on the service's own address by default", async () => {
    const { initializeTransaction: tx } = await client(keys.testPublicKey).request(InitializeCheckoutDocument, {
      input: input({ returnUrl: "http://localhost:5173/done" }),
    });
    expect(tx.clientSecret).toMatch(new RegExp(`^${tx.id}_secret_[0-9A-Za-z]{32}$`));
    expect(tx.checkoutUrl).toBe(`${t.url}/checkout/${tx.clientSecret}`);
    expect(tx.returnUrl).toBe("http://localhost:5173/done");
    expect(tx.customer).toBeNull();
  });

  it("reads its own transaction, without the customer", async () => {
    const { id, secret, checkoutUrl } = await initialize();
    const { transaction } = await client(secret).request(GetCheckoutDocument, { id });
    expect(transaction).toMatchObject({ id, status: "INITIATED", clientSecret: secret, checkoutUrl, customer: null });
  });

  it("is shown to the secret key, with the customer", async () => {
    const { id, secret } = await initialize();
    const { transaction } = await client(keys.testSecretKey).request(GetCheckoutDocument, { id });
    expect(transaction).toMatchObject({ clientSecret: secret, customer: { email: "ada@example.com", name: "Ada Obi" } });
    const asPublic = await client(keys.testPublicKey).request(GetCheckoutDocument, { id });
    expect(asPublic.transaction?.clientSecret).toBeNull();
    // The checkout URL holds the secret: a public key, which anyone may have, is shown neither.
    expect(asPublic.transaction?.checkoutUrl).toBeNull();
  });

  it("finds nothing of another transaction: null for transaction and paymentOptions", async () => {
    const x = await initialize();
    const y = await initialize();
    expect((await client(x.secret).request(GetCheckoutDocument, { id: y.id })).transaction).toBeNull();
    expect((await client(x.secret).request(PaymentOptionsDocument, { transactionId: y.id })).paymentOptions).toBeNull();
  });

  it("refuses a tampered secret as UNAUTHENTICATED with its message", async () => {
    const { id, secret } = await initialize();
    const tampered = `${secret.slice(0, -1)}${secret.endsWith("z") ? "y" : "z"}`;
    const error = await failure(client(tampered).request(GetCheckoutDocument, { id }));
    expect(error.message).toBe("Invalid client secret: use the client_secret that initialize returned for this transaction");
    expect(error.extensions).toMatchObject({ code: "UNAUTHENTICATED", status: 401, reason: "invalid_client_secret" });
  });

  it("refuses a bad returnUrl with the field's message", async () => {
    const error = await failure(
      client(live.livePublicKey).request(InitializeCheckoutDocument, { input: input({ returnUrl: "http://shop.example.com/" }) }),
    );
    expect(error.message).toBe("Validation Error");
    expect(error.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      status: 400,
      errors: [{ field: "returnUrl", message: "return_url: live-mode return URLs must use https (got http:)" }],
    });
  });
});

describe("paymentOptions", () => {
  it("lists the coins of the merchant's wallets in the transaction's mode, priced at the current rate and rounded up", async () => {
    const { id, secret } = await initialize(live.livePublicKey);
    const { paymentOptions } = await client(secret).request(PaymentOptionsDocument, { transactionId: id });
    expect(paymentOptions).toMatchObject({
      transactionId: id,
      merchant: { id: live.id, name: "Live Ltd" },
      isLive: true,
      amount: "100",
      currency: { id: 1, slug: "USD" },
      description: "Order #42",
      status: "INITIATED",
    });
    expect(paymentOptions?.expiresAt).toEqual(expect.any(String));
    // BTC, ETH and LTC have wallets; USDT and BNB have none in live mode.
    expect(paymentOptions?.options.map((o) => [o.currency.slug, o.available, o.amount, o.rate])).toEqual([
      ["BTC", true, "0.00153847", "65000"], // 100 / 65,000 = 0.0015384615… rounded up
      ["ETH", true, "0.03333334", "3000"], // 100 / 3,000 = 0.0333333…
      ["LTC", true, "1.25", "80"],
    ]);
    for (const option of paymentOptions?.options ?? []) expect(option.quotedAt).toEqual(expect.any(String));
    // Indicative only: nothing was locked or moved.
    expect(await row(id)).toMatchObject({ status: "INITIATED", quoteRate: null, paymentCurrencyId: null });
  });

  it("marks a coin whose quote fails unavailable, and still lists the others", async () => {
    const { id, secret } = await initialize(live.livePublicKey);
    feed.failing.add("ETH");
    try {
      const { paymentOptions } = await client(secret).request(PaymentOptionsDocument, { transactionId: id });
      expect(paymentOptions?.options).toEqual([
        expect.objectContaining({ currency: expect.objectContaining({ slug: "BTC" }), available: true, amount: "0.00153847" }),
        { currency: { id: 6, slug: "ETH", decimals: 8 }, available: false, amount: null, rate: null, quotedAt: null },
        expect.objectContaining({ currency: expect.objectContaining({ slug: "LTC" }), available: true, amount: "1.25" }),
      ]);
    } finally {
      feed.failing.clear();
    }
  });

  it("answers the public and the secret key of the transaction's merchant and mode, and null to others", async () => {
    const { id } = await initialize();
    const slugs = async (token: string) =>
      (await client(token).request(PaymentOptionsDocument, { transactionId: id })).paymentOptions?.options.map((o) => o.currency.slug);
    // Every new merchant has a test wallet for each coin on each of its networks.
    const everyCoinNetwork = [...Array(5).fill("USDT"), "BTC", "BNB", "ETH", "LTC", ...Array(5).fill("USDC")];
    expect(await slugs(keys.testPublicKey)).toEqual(everyCoinNetwork);
    expect(await slugs(keys.testSecretKey)).toEqual(everyCoinNetwork);
    expect(await slugs(keys.livePublicKey)).toBeUndefined();
    expect(await slugs(live.testPublicKey)).toBeUndefined();
  });

  it("wants a credential", async () => {
    const { id } = await initialize();
    const error = await failure(client().request(PaymentOptionsDocument, { transactionId: id }));
    expect(error.message).toBe("Missing API key: send Authorization: Bearer pub_… or sec_…, or a client secret");
    expect(error.extensions).toMatchObject({ code: "UNAUTHENTICATED", status: 401 });
  });
});

describe("initiatePayment with the client secret", () => {
  it("moves the transaction to PENDING once; a second is the spec's 422", async () => {
    const { id, secret, checkoutUrl } = await initialize();
    const { initiatePayment } = await client(secret).request(InitiateCheckoutDocument, {
      transactionId: id,
      input: { currencyId: "4", refundAddress: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" },
    });
    expect(initiatePayment).toMatchObject({
      id,
      status: "PENDING",
      paymentAmount: "0.00153847",
      refundAddress: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
      checkoutUrl,
      clientSecret: secret,
      customer: null,
    });
    expect(initiatePayment.paymentAddress).toMatch(/^tb1q/);

    const again = await failure(client(secret).request(InitiateCheckoutDocument, { transactionId: id, input: { currencyId: "6" } }));
    expect(again.message).toBe("The transaction is not initiated");
    expect(again.extensions).toMatchObject({ code: "INVALID_STATE", status: 422, reason: "transaction_not_initiated" });
    expect(await row(id)).toMatchObject({ status: "PENDING", paymentCurrencyId: 4 });
  });

  it("cannot initiate another transaction: NOT_FOUND, and it stays INITIATED", async () => {
    const x = await initialize();
    const y = await initialize();
    const error = await failure(client(x.secret).request(InitiateCheckoutDocument, { transactionId: y.id, input: { currencyId: "4" } }));
    expect(error.message).toBe(`No transaction with id '${y.id}'`);
    expect(error.extensions).toMatchObject({ code: "NOT_FOUND", status: 404, reason: "transaction_not_found" });
    expect(await row(y.id)).toMatchObject({ status: "INITIATED", paymentCurrencyId: null });
  });

  it("still works with the secret key, which is shown the client secret; a public key is refused", async () => {
    const { id, secret } = await initialize();
    const refused = await failure(client(keys.testPublicKey).request(InitiateCheckoutDocument, { transactionId: id, input: { currencyId: "4" } }));
    expect(refused.message).toBe("Invalid Secret Key: this operation needs a secret key (sec_…)");
    expect(refused.extensions).toMatchObject({ code: "UNAUTHENTICATED", status: 401 });
    const { initiatePayment } = await client(keys.testSecretKey).request(InitiateCheckoutDocument, { transactionId: id, input: { currencyId: "4" } });
    expect(initiatePayment).toMatchObject({ status: "PENDING", clientSecret: secret, customer: { email: "ada@example.com" } });
  });
});

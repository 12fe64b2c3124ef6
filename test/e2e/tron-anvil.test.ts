// End to end for USDT on TRON (TRC-20) through the service in test mode: anvil started with TRON
// Nile's chain id stands for the Nile FullNode's Ethereum-compatible JSON-RPC (the same protocol;
// eth_chainId 0xcd8690dc as Nile answers it), PAYGATE_TRON_TEST_RPC_URL names it, the 6-decimal test
// token sits at the hex form of Nile's USDT contract, and the merchant's wallet for USDT on tron is a
// TRON account key (m/44'/195'/0'). A customer picks `network: "tron"` at initiate, gets a T-address
// derived from that key and pays it with a real token transfer to its hex form.
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { deriveTronAddress, tronReceiveChain } from "../../src/rails/wallets/tron.ts";
import type { Anvil } from "../support/anvil.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { payUsdt, startNileWithUsdt } from "./tron.ts";
import { eventArrives, startE2eService, type E2eService, type Transaction } from "./service.ts";

const REQUIRED = 3;
const USDT = cryptoBySlug("USDT") as CryptoCurrency;

let anvil: Anvil;
let service: E2eService;
/** The merchant's TRON account key (test mode: a tpub of m/44'/195'/0'). */
let tronKey: string;

beforeAll(async () => {
  anvil = await startNileWithUsdt();
  service = await startE2eService({ PAYGATE_TRON_TEST_RPC_URL: anvil.url, PAYGATE_CONFIRMATIONS_TRON: String(REQUIRED) }, []);
  tronKey = serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'"), "tpub");
  await service.runtime.gateway.operator.updateMerchant(service.merchant.id, {
    wallets: [{ currency: USDT, network: "tron", isLive: false, extendedPublicKey: tronKey }],
  });
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
});

/** POST /v1/transaction: the new transaction's id. */
async function create(usd: string): Promise<string> {
  const response = await fetch(`${service.url}/v1/transaction`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.merchant.testPublicKey}`, "content-type": "application/json" },
    body: JSON.stringify({ customer: { email: "ada@example.com" }, currency: "USD", amount: usd }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: Transaction }).data.id;
}

/** POST /v1/transaction, then /pay with `body`: the answer of /pay, and the transaction's id. */
async function initiate(usd: string, body: Record<string, unknown>) {
  const id = await create(usd);
  return { id, ...(await service.pay(id, { currency_id: String(USDT.id), ...body })) };
}

/** One GraphQL request with the merchant's test secret key. */
async function graphql(query: string, variables: Record<string, unknown>): Promise<{ data?: Record<string, unknown>; errors?: unknown[] }> {
  const response = await fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.merchant.testSecretKey}`, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
}

/** The amount due in USDT's base units (6 decimals), exactly. */
const dueUnits = (t: Transaction) => BigInt(new Decimal(String(t.payment_amount)).mul(1_000_000).toFixed(0));

describe("USDT on TRON through the service, on anvil as Nile's JSON-RPC", () => {
  it("hands out a T-address derived from the merchant's TRON key, detects the TRC-20 transfer, and succeeds after the confirmations", async () => {
    const paid = await initiate("25", { network: "tron" });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const t0 = paid.body.data as Transaction & { payment_network: string };
    expect(t0.payment_network).toBe("tron");
    // The wallet's first index: the address the merchant's TRON wallet shows first.
    expect(t0.payment_address).toBe(deriveTronAddress(tronReceiveChain(false, tronKey), 0));
    expect(t0.payment_uri).toBe(t0.payment_address); // TRON wallets read the plain address
    const due = dueUnits(t0);
    const tx = await payUsdt(anvil, t0.payment_address, due);
    const txid = tx.slice(2);
    let t = await service.until(t0.id, (t) => t.receipts.length === 1, "its payment seen");
    expect(t.status).toBe("PENDING");
    expect(t.receipts.map((r) => [r.key, r.tx_hash, r.amount, r.confirmations, r.state])).toEqual([
      [`${txid}:0`, txid, new Decimal(due.toString()).div(1_000_000).toFixed(), 1, "SEEN"],
    ]);
    expect(t.receipts[0]?.block_height).toBe(await anvil.blockOf(tx));
    await anvil.mine(REQUIRED - 1);
    t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(t.receipts.map((r) => [r.confirmations, r.state])).toEqual([[REQUIRED, "CONFIRMED"]]);
    await eventArrives(service, t0.reference, "payment.received");
    expect(service.events(t0.reference)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
  });

  it("gives each payment its own address, the next index of the TRON wallet", async () => {
    const first = (await initiate("5", { network: "tron" })).body.data as Transaction;
    const second = (await initiate("5", { network: "tron" })).body.data as Transaction;
    expect(first.payment_address).not.toBe(second.payment_address);
    const chain = tronReceiveChain(false, tronKey);
    const derived = Array.from({ length: 10 }, (_, i) => deriveTronAddress(chain, i));
    expect(derived.indexOf(second.payment_address)).toBe(derived.indexOf(first.payment_address) + 1);
  });

  it("is offered and initiated over GraphQL too: USDT on TRON with TRX for fees, then a T-address and its plain-address URI", async () => {
    const id = await create("7");
    const options = await graphql(
      "query ($id: ID!) { paymentOptions(transactionId: $id) { options { currency { id } network { slug name standard chainId } feeCoin feeLevel } } }",
      { id },
    );
    expect(options.errors).toBeUndefined();
    const listed = (options.data?.paymentOptions as { options: { currency: { id: number }; network: { slug: string } }[] }).options;
    expect(listed.filter((o) => o.network.slug === "tron")).toEqual([
      {
        currency: { id: USDT.id },
        network: { slug: "tron", name: "TRON Nile testnet", standard: "TRC-20", chainId: null },
        feeCoin: "TRX",
        feeLevel: "LOW",
      },
    ]);
    const initiated = await graphql(
      'mutation ($id: ID!, $currency: ID!) { initiatePayment(transactionId: $id, input: { currencyId: $currency, network: "tron" }) { paymentAddress paymentUri paymentNetwork { slug } } }',
      { id, currency: String(USDT.id) },
    );
    expect(initiated.errors).toBeUndefined();
    const t = initiated.data?.initiatePayment as { paymentAddress: string; paymentUri: string; paymentNetwork: { slug: string } };
    expect(t.paymentNetwork.slug).toBe("tron");
    expect(t.paymentAddress).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(t.paymentUri).toBe(t.paymentAddress);
  });

  it("refuses a refund address that is not a TRON address with a 400 saying what is wrong, and nothing is initiated", async () => {
    const hex = await initiate("5", { network: "tron", refund_address: "0xa614f803b6fd780986a42c78ec9c7f77e6ded13c" });
    expect(hex.status).toBe(400);
    expect(JSON.stringify(hex.body)).toContain(
      "refund_address is not a valid USDT address on tron for test mode: it is a hex address; give the TRON address in its usual form, 34 characters starting with T",
    );
    const typo = await initiate("5", { network: "tron", refund_address: "TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeD" });
    expect(typo.status).toBe(400);
    expect(JSON.stringify(typo.body)).toContain("it has a checksum that does not match, so it was mistyped or cut short");
    for (const refused of [hex, typo]) {
      const t = await service.get(refused.id);
      expect([t.payment_address, t.meta.refund_address]).toEqual([null, null]);
    }
    const ok = await initiate("5", { network: "tron", refund_address: "TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((ok.body.data as Transaction).meta.refund_address).toBe("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC");
  });
});

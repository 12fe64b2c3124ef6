// The ledger against a real Litecoin Core node (regtest), issue 40 goal 5: three payments paid by
// signed transactions, one refunded through the PSBT paygate builds (signed with the merchant's test
// seed, change back to the merchant's key), the other two consolidated into one PSBT to an address of
// the merchant's; all mined. Then the ledger's totals for LTC on litecoin add up to its entries and to
// what the node says: what the payment addresses received (the node's watch-only wallet), and `net`
// equal to what the node's UTXO set holds at every address of the merchant's the money went to
// (payment addresses, the refund's change, the consolidation's destination).
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { Transaction as BtcTransaction } from "@scure/btc-signer";
import { base64 } from "@scure/base";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { FUNDER, startLitecoind, type Litecoind } from "../support/litecoind.ts";
import { amountOf, watchedBy } from "./ltc.ts";
import { startE2eService, type E2eService } from "./service.ts";

const REQUIRED = 1;
const FINALITY = 2;
const SEED = randomBytes(32);
const master = HDKey.fromMasterSeed(SEED);
const FINGERPRINT = master.fingerprint.toString(16).padStart(8, "0");
const VPUB = serializeKey(master.derive("m/84'/1'/0'"), "vpub");

interface Entry {
  id: string;
  kind: string;
  coin: string;
  network: string;
  amount: string;
  fee: string | null;
  tx_hash: string | null;
  address: string | null;
  transaction_id: string | null;
}
interface Totals {
  coin: string;
  network: string;
  receipts: number;
  received: string;
  refunds: number;
  refunded: string;
  refund_fees: string;
  consolidations: number;
  consolidated: string;
  consolidation_fees: string;
  flushes: number;
  flushed: string;
  sweeps: number;
  swept: string;
  sweep_fees: string;
  own_sweep_fees: string;
  net: string;
}

let node: Litecoind;
let service: E2eService;

beforeAll(async () => {
  node = await startLitecoind();
  service = await startE2eService(
    {
      PAYGATE_LTC_TEST_NODE_URL: node.url,
      PAYGATE_LTC_TEST_CHAIN: "regtest",
      PAYGATE_CONFIRMATIONS_LTC: String(REQUIRED),
      PAYGATE_FINALITY_LTC: String(FINALITY),
    },
    ["LTC"],
  );
  await service.runtime.gateway.operator.updateMerchant(service.merchant.id, {
    wallets: [{ currency: cryptoBySlug("LTC") as CryptoCurrency, isLive: false, extendedPublicKey: `[${FINGERPRINT}/84'/1'/0']${VPUB}` }],
  });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await node?.stop();
});

/** The reply's `data`, of the shape the route documents (the test gateway's OpenAPI check is not on this service). */
const call = async <T>(method: string, route: string, body?: unknown): Promise<{ status: number; body: { data: T } }> => {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${service.merchant.testSecretKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data: T } };
};

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A SUCCESSFUL LTC payment of `usd`, paid by a signed transaction of the funder's and mined. */
async function paidTransaction(usd: string, refundAddress?: string) {
  const t = await watchedBy(node, "paygate", await service.initiate("LTC", usd, refundAddress));
  await node.send("sendtoaddress", [t.payment_address, amountOf(t).toFixed(8)], FUNDER);
  await service.until(t.id, (x) => x.receipts.length === 1, "its payment seen");
  await node.mine(REQUIRED);
  const paid = await service.until(t.id, (x) => x.status === "SUCCESSFUL", "SUCCESSFUL");
  return { id: paid.id, address: t.payment_address, amount: amountOf(paid) };
}

/** Signs a PSBT paygate built with the merchant's seed; the node finalises and broadcasts it. */
async function signAndSend(psbt: string): Promise<{ txid: string; hex: string }> {
  const unsigned = BtcTransaction.fromPSBT(base64.decode(psbt));
  unsigned.sign(master as Parameters<BtcTransaction["sign"]>[0] & HDKey);
  const finalized = (await node.send("finalizepsbt", [base64.encode(unsigned.toPSBT(0))])) as { hex: string; complete: boolean };
  expect(finalized.complete).toBe(true);
  return { txid: String(await node.send("sendrawtransaction", [finalized.hex])), hex: finalized.hex };
}

/** What the node's UTXO set holds at these addresses (confirmed outputs only). */
async function heldAt(addresses: string[]): Promise<Decimal> {
  const scan = (await node.send("scantxoutset", ["start", addresses.map((a) => `addr(${a})`)])) as { success: boolean; total_amount: number };
  expect(scan.success).toBe(true);
  return new Decimal(scan.total_amount.toFixed(8));
}

describe("the ledger reconciles with a regtest Litecoin node", () => {
  it("totals per coin and network match the entries, what the payment addresses received, and what the merchant's addresses hold", async () => {
    const refundAddress = await node.newAddress();
    const refunded = await paidTransaction("60", refundAddress);
    const kept = [await paidTransaction("50"), await paidTransaction("40")];
    const payments = [refunded, ...kept];

    // A refund of 30 % of the first payment through its PSBT: the customer gets the amount, the change goes to the merchant's 1/index.
    const amount = refunded.amount.times("0.3").toDecimalPlaces(8, Decimal.ROUND_DOWN);
    const created = await call<{ id: string; payment: { psbt: string } }>("POST", `/v1/transaction/${refunded.id}/refunds`, {
      amount_kind: "custom",
      amount: amount.toFixed(),
      amount_currency: "LTC",
      fee_rate: "5",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const refundSent = await signAndSend(created.body.data.payment.psbt);
    const decodedRefund = (await node.send("decoderawtransaction", [refundSent.hex])) as {
      vout: { value: number; scriptPubKey: { addresses?: string[]; address?: string } }[];
    };
    const changeAddresses = decodedRefund.vout
      .flatMap((o) => o.scriptPubKey.addresses ?? [o.scriptPubKey.address ?? ""])
      .filter((a) => a !== refundAddress);
    expect(changeAddresses).toHaveLength(1);
    await node.mine(REQUIRED);
    await until(
      () => call<{ state: string }>("GET", `/v1/refunds/${created.body.data.id}`),
      (r) => r.body.data.state === "succeeded",
      "the refund's success",
    );

    // The other two, once final, consolidated to an address of the merchant's.
    await node.mine(FINALITY);
    await until(
      () => service.runtime.database.db.transaction.findMany({ where: { id: { in: kept.map((k) => k.id) } }, select: { finalAt: true } }),
      (rows) => rows.every((r) => r.finalAt !== null),
      "the payments' finality",
    );
    const destination = await node.newAddress();
    const consolidation = await call<{
      id: string;
      psbt: string;
      tx_hash: string;
      network_fee: string;
      amount_to_receive: string;
      inputs: { transaction_id: string }[];
    }>("POST", "/v1/settlements/consolidations", { coin: "LTC", destination, fee_rate: "4" });
    expect(consolidation.status, JSON.stringify(consolidation.body)).toBe(201);
    expect(consolidation.body.data.inputs.map((i) => i.transaction_id).sort()).toEqual(kept.map((k) => k.id).sort());
    await watchedBy(node, "paygate", { payment_address: destination } as Parameters<typeof watchedBy>[2]);
    await signAndSend(consolidation.body.data.psbt);
    await node.mine(REQUIRED);
    await until(
      () => call<{ state: string }>("GET", `/v1/settlements/consolidations/${consolidation.body.data.id}`),
      (c) => c.body.data.state === "confirmed",
      "the consolidation's confirmation",
    );

    // The entries: three receipts, the refund, the consolidation.
    const listed = await call<Entry[]>("GET", "/v1/ledger/entries?limit=100&coin=LTC");
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const entries = listed.body.data;
    expect(entries.map((e) => e.kind).sort()).toEqual(["consolidation", "receipt", "receipt", "receipt", "refund"]);
    expect(
      entries
        .filter((e) => e.kind === "receipt")
        .map((e) => e.address)
        .sort(),
    ).toEqual(payments.map((p) => p.address).sort());
    const refundEntry = entries.find((e) => e.kind === "refund") as Entry;
    expect([refundEntry.tx_hash, refundEntry.amount, refundEntry.address]).toEqual([refundSent.txid, amount.toFixed(), refundAddress]);
    const consolidationEntry = entries.find((e) => e.kind === "consolidation") as Entry;
    expect([consolidationEntry.tx_hash, consolidationEntry.fee, consolidationEntry.amount]).toEqual([
      consolidation.body.data.tx_hash,
      consolidation.body.data.network_fee,
      consolidation.body.data.amount_to_receive,
    ]);

    // The totals add up to the entries.
    const got = await call<{ totals: Totals[] }>("GET", "/v1/ledger/totals?coin=LTC");
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const [line, ...more] = got.body.data.totals;
    expect(more).toEqual([]);
    const sum = (kind: string, field: "amount" | "fee") =>
      entries.filter((e) => e.kind === kind).reduce((s, e) => s.plus(e[field] ?? 0), new Decimal(0));
    expect(line).toEqual({
      coin: "LTC",
      network: "litecoin",
      receipts: 3,
      received: sum("receipt", "amount").toFixed(),
      refunds: 1,
      refunded: sum("refund", "amount").toFixed(),
      refund_fees: sum("refund", "fee").toFixed(),
      consolidations: 1,
      consolidated: sum("consolidation", "amount").toFixed(),
      consolidation_fees: sum("consolidation", "fee").toFixed(),
      flushes: 0,
      flushed: "0",
      sweeps: 0,
      swept: "0",
      sweep_fees: "0",
      own_sweep_fees: "0",
      net: sum("receipt", "amount").minus(sum("refund", "amount")).minus(sum("refund", "fee")).minus(sum("consolidation", "fee")).toFixed(),
    });
    expect(new Decimal((line as Totals).refund_fees).isPositive() && new Decimal((line as Totals).consolidation_fees).isPositive()).toBe(true);

    // And to the node: what the payment addresses received, in the service's watch-only wallet…
    const received = (await node.send("listreceivedbyaddress", [1, false, true], "paygate")) as { address: string; amount: number }[];
    const receivedByPayments = received
      .filter((r) => payments.some((p) => p.address === r.address))
      .reduce((s, r) => s.plus(r.amount.toFixed(8)), new Decimal(0));
    expect(receivedByPayments.toFixed()).toBe((line as Totals).received);
    expect((line as Totals).received).toBe(payments.reduce((s, p) => s.plus(p.amount), new Decimal(0)).toFixed());
    // …and what every address of the merchant's that the money went to holds now: the spent payment
    // addresses nothing, the refund's change and the consolidation's destination the rest.
    expect((await heldAt(payments.map((p) => p.address))).toFixed()).toBe("0");
    const held = await heldAt([...payments.map((p) => p.address), ...changeAddresses, destination]);
    expect(held.toFixed()).toBe((line as Totals).net);
  }, 240_000);
});

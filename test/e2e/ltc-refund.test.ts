// Refunds on a real Litecoin Core node (regtest), issue 26: a payment made by a signed transaction,
// a refund whose unsigned PSBT paygate builds (key origins from the wallet's descriptor setting,
// checked with the node's decodepsbt and analyzepsbt), signed with the merchant's test seed,
// finalised and broadcast by the node, mined, and seen by the refund watcher, which closes the refund
// with that hash. A merchant's tx_hash (mark paid) is verified on the chain the same way. One chain
// transaction closes one refund, also after a restart and with two watchers at once (issue 42).
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { Transaction as BtcTransaction } from "@scure/btc-signer";
import { base64 } from "@scure/base";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { RefundWatcher } from "../../src/jobs/refund-watcher.ts";
import { ChainWatchers } from "../../src/rails/chains/index.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { FUNDER, startLitecoind, type Litecoind } from "../support/litecoind.ts";
import { amountOf, watchedBy } from "./ltc.ts";
import { startE2eService, type E2eService } from "./service.ts";

const REQUIRED = 1;
const SEED = randomBytes(32);
const master = HDKey.fromMasterSeed(SEED);
const FINGERPRINT = master.fingerprint.toString(16).padStart(8, "0");
const VPUB = serializeKey(master.derive("m/84'/1'/0'"), "vpub");

interface RefundBody {
  id: string;
  state: string;
  amount: string;
  amount_to_customer: string;
  network_fee: string | null;
  destination: string | null;
  tx_hash: string | null;
  paid_by: string | null;
  verification: string | null;
  payment: { uri: string; psbt: string | null; key_origin_missing: string | null } | null;
}

let node: Litecoind;
let service: E2eService;

beforeAll(async () => {
  node = await startLitecoind();
  service = await startE2eService(
    { PAYGATE_LTC_TEST_NODE_URL: node.url, PAYGATE_LTC_TEST_CHAIN: "regtest", PAYGATE_CONFIRMATIONS_LTC: String(REQUIRED) },
    ["LTC"],
  );
  // The merchant's wallet as a descriptor key expression: its key with the seed's fingerprint and account path.
  await service.runtime.gateway.operator.updateMerchant(service.merchant.id, {
    wallets: [{ currency: cryptoBySlug("LTC") as CryptoCurrency, isLive: false, extendedPublicKey: `[${FINGERPRINT}/84'/1'/0']${VPUB}` }],
  });
});
afterAll(async () => {
  await service?.close();
  await node?.stop();
});

const call = async (method: string, route: string, body?: unknown) => {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${service.merchant.testSecretKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { status: string; message?: string; data?: RefundBody } };
};

const refundOf = async (id: string) => {
  const got = await call("GET", `/v1/refunds/${id}`);
  expect(got.status, JSON.stringify(got.body)).toBe(200);
  return got.body.data as RefundBody;
};

async function refundUntil(id: string, done: (r: RefundBody) => boolean, what: string): Promise<RefundBody> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const refund = await refundOf(id);
    if (done(refund)) return refund;
    if (Date.now() > deadline) throw new Error(`refund ${id} did not reach ${what}: ${JSON.stringify(refund)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A SUCCESSFUL LTC payment with a refund address of the node's funder wallet. */
async function paidTransaction() {
  const refundAddress = await node.newAddress();
  const t = await watchedBy(node, "paygate", await service.initiate("LTC", "50", refundAddress));
  const txid = String(await node.send("sendtoaddress", [t.payment_address, amountOf(t).toFixed(8)], FUNDER));
  await service.until(t.id, (x) => x.receipts.length === 1, "its payment seen");
  await node.mine(REQUIRED);
  const paid = await service.until(t.id, (x) => x.status === "SUCCESSFUL", "SUCCESSFUL");
  const row = await service.runtime.database.db.transaction.findUniqueOrThrow({ where: { id: t.id }, select: { derivationIndex: true } });
  return { t: paid, refundAddress, txid, index: row.derivationIndex as number };
}

describe("LTC refunds through the service on a regtest node", () => {
  it("builds a PSBT with the key origins, which the seed signs and the node broadcasts; the watcher closes the refund with its hash", async () => {
    const { t, refundAddress, txid, index } = await paidTransaction();
    const paid = amountOf(t);
    const amount = paid.times("0.3").toDecimalPlaces(8, Decimal.ROUND_DOWN);
    // A refund that the fee would leave as dust is refused, naming the amount with the rails' reason, and none is made.
    const dust = await call("POST", `/v1/transaction/${t.id}/refunds`, {
      amount_kind: "custom",
      amount: "0.000005",
      amount_currency: "LTC",
      fee_rate: "2",
      deduct_network_fee: true,
    });
    expect(dust.status, JSON.stringify(dust.body)).toBe(400);
    expect((dust.body as { errors?: unknown }).errors).toEqual([
      {
        field: "amount",
        message:
          "After its network fee of 0.00000282 LTC, the refund would pay the customer 0.00000218 LTC, below the dust limit of 0.00000294 LTC that nodes relay; refund more, or choose a lower fee_rate",
      },
    ]);
    const none = await fetch(`${service.url}/v1/transaction/${t.id}/refunds`, {
      headers: { authorization: `Bearer ${service.merchant.testSecretKey}` },
    });
    expect(((await none.json()) as { data: unknown[] }).data).toEqual([]);
    const created = await call("POST", `/v1/transaction/${t.id}/refunds`, {
      amount_kind: "custom",
      amount: amount.toFixed(),
      amount_currency: "LTC",
      fee_rate: "5",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const refund = created.body.data as RefundBody;
    expect([refund.state, refund.destination, refund.amount_to_customer]).toEqual(["pending", refundAddress, amount.toFixed()]);
    expect(refund.payment?.key_origin_missing).toBeNull();
    expect(refund.payment?.uri).toBe(`litecoin:${refundAddress}?amount=${amount.toFixed()}`);
    const psbt = refund.payment?.psbt as string;

    // The node reads it as a wallet would: the paid output (with its whole transaction), its key's origin, and the change's.
    const decoded = (await node.send("decodepsbt", [psbt])) as {
      tx: { vin: { txid: string; vout: number }[]; vout: { value: number; scriptPubKey: { addresses?: string[]; address?: string } }[] };
      inputs: {
        witness_utxo: { amount: number };
        non_witness_utxo?: { txid: string };
        bip32_derivs: { master_fingerprint: string; path: string }[];
      }[];
      outputs: { bip32_derivs?: { master_fingerprint: string; path: string }[] }[];
      fee: number;
    };
    expect(decoded.tx.vin.map((i) => i.txid)).toEqual([txid]);
    expect(new Decimal(decoded.inputs[0]?.witness_utxo.amount ?? 0).toFixed()).toBe(paid.toFixed());
    expect(decoded.inputs[0]?.non_witness_utxo?.txid).toBe(txid);
    expect(decoded.inputs[0]?.bip32_derivs).toEqual([expect.objectContaining({ master_fingerprint: FINGERPRINT, path: `m/84'/1'/0'/0/${index}` })]);
    const [toCustomer, change] = decoded.tx.vout;
    expect(toCustomer?.scriptPubKey.addresses ?? [toCustomer?.scriptPubKey.address]).toEqual([refundAddress]);
    expect(new Decimal(toCustomer?.value ?? 0).toFixed()).toBe(amount.toFixed());
    expect(decoded.outputs[1]?.bip32_derivs).toEqual([expect.objectContaining({ master_fingerprint: FINGERPRINT, path: `m/84'/1'/0'/1/${index}` })]);
    expect(new Decimal(decoded.fee).toFixed()).toBe(refund.network_fee);
    expect(new Decimal(change?.value ?? 0).plus(decoded.fee).plus(amount).toFixed()).toBe(paid.toFixed());
    const analyzed = (await node.send("analyzepsbt", [psbt])) as {
      next: string;
      inputs: { has_utxo: boolean; next: string }[];
      estimated_feerate?: number;
    };
    expect(analyzed.next).toBe("signer");
    expect(analyzed.inputs).toEqual([expect.objectContaining({ has_utxo: true, next: "signer" })]);

    // The merchant's wallet signs it: the seed finds its key by the fingerprint and path the PSBT names.
    const unsigned = BtcTransaction.fromPSBT(base64.decode(psbt));
    // btc-signer's HD signer type wants the key's public key non-null, which a master key from a seed has.
    expect(unsigned.sign(master as Parameters<BtcTransaction["sign"]>[0] & HDKey)).toBe(1);
    const finalized = (await node.send("finalizepsbt", [base64.encode(unsigned.toPSBT(0))])) as { hex: string; complete: boolean };
    expect(finalized.complete).toBe(true);
    const refundTxid = String(await node.send("sendrawtransaction", [finalized.hex]));
    expect((await refundOf(refund.id)).state).toBe("pending");
    await node.mine(REQUIRED);
    const closed = await refundUntil(refund.id, (r) => r.state === "succeeded", "succeeded");
    expect([closed.tx_hash, closed.paid_by, closed.payment]).toEqual([refundTxid, "watcher", null]);
  }, 120_000);

  it("verifies a merchant's tx_hash: an unknown hash leaves it pending with verification failed, the real one closes it as the merchant's", async () => {
    const { t, refundAddress } = await paidTransaction();
    const amount = amountOf(t).times("0.5").toDecimalPlaces(8, Decimal.ROUND_DOWN);
    const created = await call("POST", `/v1/transaction/${t.id}/refunds`, {
      amount_kind: "custom",
      amount: amount.toFixed(),
      amount_currency: "LTC",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = (created.body.data as RefundBody).id;

    const unknown = randomBytes(32).toString("hex");
    expect((await call("POST", `/v1/refunds/${id}/mark_paid`, { tx_hash: unknown })).status).toBe(200);
    const failed = await refundUntil(id, (r) => r.verification === "failed", "verification failed");
    expect([failed.state, failed.tx_hash, failed.paid_by]).toEqual(["pending", unknown, "merchant"]);

    // Paid from elsewhere (the node's wallet, as a merchant may from its own), then marked paid with that hash.
    const sent = String(await node.send("sendtoaddress", [refundAddress, amount.toFixed(8)], FUNDER));
    expect((await call("POST", `/v1/refunds/${id}/mark_paid`, { tx_hash: sent })).status).toBe(200);
    await node.mine(REQUIRED);
    const closed = await refundUntil(id, (r) => r.state === "succeeded", "succeeded");
    expect([closed.tx_hash, closed.paid_by, closed.verification]).toEqual([sent, "merchant", "verified"]);
  }, 120_000);

  it("closes one refund with one transaction: a second refund to the address stays pending after a restart and with two watchers at once", async () => {
    const { t, refundAddress } = await paidTransaction();
    const part = amountOf(t).times("0.2").toDecimalPlaces(8, Decimal.ROUND_DOWN);
    const make = async () => {
      const made = await call("POST", `/v1/transaction/${t.id}/refunds`, { amount_kind: "custom", amount: part.toFixed(), amount_currency: "LTC" });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return (made.body.data as RefundBody).id;
    };
    // Watchers of this test's own, each with its own memory, as a restarted service or a second instance has.
    const watcher = () =>
      new RefundWatcher(service.runtime.gateway.refunds, new ChainWatchers(service.config.chains), {
        intervalMs: 60_000,
        requiredConfirmations: () => REQUIRED,
      });
    const succeededEvents = (id: string) => service.runtime.database.db.webhookEvent.count({ where: { refundId: id, type: "refund.succeeded" } });
    await service.runtime.refundWatcher.stop();
    try {
      const first = await make();
      const second = await make();
      // A first pass has the node's watch-only wallet take the destination (imported without a rescan).
      const unpaid = await watcher().tick();
      expect([unpaid.get(first), unpaid.get(second)]).toEqual(["waiting", "waiting"]);
      const paying = String(await node.send("sendtoaddress", [refundAddress, part.toFixed(8)], FUNDER));
      await node.mine(REQUIRED);

      const before = await watcher().tick();
      expect([before.get(first), before.get(second)]).toEqual(["succeeded", "waiting"]);
      // The restart: a new watcher knows nothing of the last one, and reads the same answer from the database.
      const after = await watcher().tick();
      expect(after.get(second)).toBe("waiting");
      const closed = await refundOf(first);
      expect([closed.state, closed.tx_hash, closed.paid_by]).toEqual(["succeeded", paying, "watcher"]);
      const waiting = await refundOf(second);
      expect([waiting.state, waiting.tx_hash, waiting.paid_by]).toEqual(["pending", null, null]);
      expect(await succeededEvents(second)).toBe(0);
      // Nor may the merchant name that transaction for the second refund.
      const refused = await call("POST", `/v1/refunds/${second}/mark_paid`, { tx_hash: paying });
      expect([refused.status, refused.body.message]).toEqual([
        409,
        `The transaction ${paying} already closed another refund: one chain transaction closes one refund; pay this refund with a transaction of its own`,
      ]);

      // A third refund marked paid by the merchant with the next transaction, then two watchers at once:
      // the older second refund leaves that transaction to the refund the merchant named, and each closes once.
      const third = await make();
      const next = String(await node.send("sendtoaddress", [refundAddress, part.toFixed(8)], FUNDER));
      expect((await call("POST", `/v1/refunds/${third}/mark_paid`, { tx_hash: next })).status).toBe(200);
      await node.mine(REQUIRED);
      const outcomes = await Promise.all([watcher().tick(), watcher().tick()]);
      expect(outcomes.map((o) => o.get(second))).toEqual(["waiting", "waiting"]);
      // The other watcher found it closed already (waiting) or no longer pending (not read).
      expect(outcomes.filter((o) => o.get(third) === "succeeded")).toHaveLength(1);
      const merchants = await refundOf(third);
      expect([merchants.state, merchants.tx_hash, merchants.paid_by, merchants.verification]).toEqual(["succeeded", next, "merchant", "verified"]);
      expect([(await refundOf(second)).state, await succeededEvents(second), await succeededEvents(third)]).toEqual(["pending", 0, 1]);

      // Its own transaction closes the second, under two watchers at once: once, with one event.
      const own = String(await node.send("sendtoaddress", [refundAddress, part.toFixed(8)], FUNDER));
      await node.mine(REQUIRED);
      const last = await Promise.all([watcher().tick(), watcher().tick()]);
      expect(last.filter((o) => o.get(second) === "succeeded")).toHaveLength(1);
      expect([(await refundOf(second)).tx_hash, await succeededEvents(second)]).toEqual([own, 1]);
    } finally {
      service.runtime.refundWatcher.start();
    }
  }, 120_000);
});

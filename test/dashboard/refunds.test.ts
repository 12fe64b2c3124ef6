// The dashboard's refunds (issue 26) over HTTP with signed-in sessions: make one on a transaction that
// received money, list a transaction's, read one (URI and QR), cancel, mark paid; the API's errors
// (status, reason, message) for over-refundable amounts, an invalid address, another merchant's
// transaction; a viewer and a deactivated merchant refused; the audit log; a double submission with
// the form's Idempotency-Key; and the list's refunds filter and Refunded column, also in the CSV.
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { initializeBody } from "../support/builders.ts";
import { EXPORT_CSV_HEADER } from "../support/csv-export.ts";
import { signedInAs, type DashboardClient } from "../support/dashboard.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
gatewayAndReceiverForFile((started) => {
  t = started.t;
});

const API = "/dashboard/api";
const LTC_TEST_ADDRESS = "tltc1q33andx3shykl4uhyerlfhkl7u64mwvz9sa0pdn";
/** Valid, but of Litecoin's main network: not where test mode's refunds go. */
const LTC_MAINNET_ADDRESS = "ltc1qqurswpc8qurswpc8qurswpc8qurswpc8p4r4uu";
const TX_HASH = "ab".repeat(32);

type Keys = Awaited<ReturnType<TestGateway["merchant"]>>;

/** A test-mode LTC transaction the test helper paid in full (to `refundAddress` when given). */
async function paid(keys: Keys, refundAddress?: string) {
  const init = await t.post("/v1/transaction", initializeBody({ amount: "100" }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(init.status).toBe(201);
  const id: string = init.body.data.id;
  const secret = { authorization: `Bearer ${keys.testSecretKey}` };
  const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7", ...(refundAddress ? { refund_address: refundAddress } : {}) }, secret);
  expect(pay.status).toBe(200);
  const helper = await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret);
  expect(helper.status).toBe(200);
  const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
  return { id, amountPaid: new Decimal(row.amountPaid?.toString() ?? 0) };
}

async function unpaid(keys: Keys) {
  const init = await t.post("/v1/transaction", initializeBody({ amount: "100" }), { authorization: `Bearer ${keys.testPublicKey}` });
  return init.body.data.id as string;
}

const refundsState = async () => JSON.stringify(await t.db.refund.findMany({ orderBy: { id: "asc" } }));

async function auditActions(merchantId: number) {
  const rows = await t.db.auditLogEntry.findMany({ where: { merchantId, action: { startsWith: "refund." } }, orderBy: { id: "asc" } });
  return rows.map((r) => `${r.action} ${r.actorEmail}: ${r.target}`);
}

describe("a refund from the dashboard", () => {
  it("is made, listed, read with its URI and QR, and cancelled by an owner, each change in the audit log", async () => {
    const keys = await t.merchant({ name: "Dash Refunds" });
    const tx = await paid(keys, LTC_TEST_ADDRESS);
    const owner = await signedInAs(t, keys.id, "owner");

    const created = await owner.post(`${API}/transactions/${tx.id}/refunds?mode=test`, { amount_kind: "full", valuation: "locked_rate" });
    expect(created.status).toBe(201);
    const r = created.body.data;
    expect(r).toMatchObject({
      object: "refund",
      transaction_id: tx.id,
      state: "pending",
      amount: tx.amountPaid.toFixed(),
      currency: "LTC",
      destination: LTC_TEST_ADDRESS,
      destination_source: "refund_address",
      refund_url: null,
    });
    // The test helper's payment has no chain output to spend: no PSBT, the URI and QR to pay from elsewhere.
    expect(r.payment).toMatchObject({ psbt: null, problem: expect.stringMatching(/chain output/) });
    expect(r.payment.uri).toContain(LTC_TEST_ADDRESS);
    expect(r.payment.qr).toMatch(/^data:image\/png;base64,/);
    // The API's own use case: the same object, event and all.
    expect((await t.db.webhookEvent.findMany({ where: { refundId: r.id } })).map((e) => e.type)).toEqual(["refund.created"]);

    const list = await owner.get(`${API}/transactions/${tx.id}/refunds`);
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ amount_refundable: "0", refunds: [{ id: r.id, state: "pending" }] });

    const one = await owner.get(`${API}/refunds/${r.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: r.id, state: "pending", payment: { uri: r.payment.uri } });

    const noPsbt = await owner.get(`${API}/refunds/${r.id}/psbt`);
    expect(noPsbt.status).toBe(404);
    expect(noPsbt.body).toMatchObject({
      reason: "refund_psbt_not_found",
      message: `Refund ${r.id} has no PSBT to sign: only a pending BTC or LTC refund with a destination has one`,
    });

    const canceled = await owner.post(`${API}/refunds/${r.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ id: r.id, state: "canceled" });
    const again = await owner.post(`${API}/refunds/${r.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      reason: "refund_not_pending",
      message: "The refund is canceled, not pending: only a pending refund can change",
    });

    expect(await auditActions(keys.id)).toEqual([
      `refund.create ${owner.email}: ${r.id} of ${tx.amountPaid.toFixed()} LTC on transaction ${tx.id}`,
      `refund.cancel ${owner.email}: ${r.id} on transaction ${tx.id}`,
    ]);
  });

  it("gives a claim link when the transaction has no refund address, and a developer marks it paid once claimed", async () => {
    const keys = await t.merchant({ name: "Dash Claims" });
    const tx = await paid(keys);
    const developer = await signedInAs(t, keys.id, "developer");
    const created = await developer.post(`${API}/transactions/${tx.id}/refunds`, {
      amount_kind: "custom",
      amount: "10",
      amount_currency: "USD",
    });
    expect(created.status).toBe(201);
    const r = created.body.data;
    expect(r).toMatchObject({ destination: null, destination_source: "claim", amount_kind: "custom", fiat_amount: "10.00" });
    expect(r.refund_url).toMatch(new RegExp(`^${t.url}/refund/`));

    // Nothing to check a payment against before the customer claims it.
    const early = await developer.post(`${API}/refunds/${r.id}/mark_paid`, { tx_hash: TX_HASH });
    expect(early.status).toBe(400);
    expect(early.body.errors).toEqual([
      { field: "tx_hash", message: "the refund has no destination yet: the customer has not claimed it, so no payment can be checked" },
    ]);

    const claim = await fetch(String(r.refund_url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ address: LTC_TEST_ADDRESS }),
      redirect: "manual",
    });
    expect(claim.status).toBeLessThan(400);

    const badHash = await developer.post(`${API}/refunds/${r.id}/mark_paid`, { tx_hash: "0x12" });
    expect(badHash.status).toBe(400);
    expect(badHash.body.errors).toEqual([
      { field: "tx_hash", message: "tx_hash must be a transaction hash: 64 hexadecimal digits (0x first on EVM chains)" },
    ]);
    const marked = await developer.post(`${API}/refunds/${r.id}/mark_paid`, { tx_hash: TX_HASH });
    expect(marked.status).toBe(200);
    expect(marked.body.data).toMatchObject({ state: "pending", tx_hash: TX_HASH, paid_by: "merchant", verification: "pending" });
    expect((await auditActions(keys.id)).at(-1)).toBe(`refund.mark_paid ${developer.email}: ${r.id} with ${TX_HASH}`);
  });
});

describe("a double submission", () => {
  it("makes one refund for the form's Idempotency-Key sent twice, and refuses that key with another body as the API does", async () => {
    const keys = await t.merchant({ name: "Dash Twice" });
    const tx = await paid(keys, LTC_TEST_ADDRESS);
    const owner = await signedInAs(t, keys.id, "owner");
    const path = `${API}/transactions/${tx.id}/refunds?mode=test`;
    const key = { "idempotency-key": crypto.randomUUID() };
    // All of it: the second of two requests without the key would be refused as over what is left.
    const body = { amount_kind: "full" };

    // Both clicks in flight at once, as a double click sends them.
    const [a, b] = await Promise.all([owner.request("POST", path, body, key), owner.request("POST", path, body, key)]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    const replay = a.status === 200 ? a : b;
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(a.body.data.id).toBe(b.body.data.id);
    expect(await t.db.refund.count({ where: { transactionId: tx.id } })).toBe(1);
    expect(await auditActions(keys.id)).toHaveLength(1);

    const before = await refundsState();
    const other = await owner.request("POST", path, { amount_kind: "custom", amount: "0.03", amount_currency: "LTC" }, key);
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({
      status: "error",
      reason: "idempotency_key_reused",
      message: "This Idempotency-Key was already used with other parameters; send a new key for a new request",
    });
    const bad = await owner.request("POST", path, body, { "idempotency-key": "é" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: "Idempotency-Key", message: "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice)" },
    ]);
    expect(await refundsState()).toBe(before);

    // Sent again later (a double Enter after the first answer): the same refund again.
    const later = await owner.request("POST", path, body, key);
    expect(later.status).toBe(200);
    expect(later.body.data.id).toBe(a.body.data.id);
    expect(await t.db.refund.count({ where: { transactionId: tx.id } })).toBe(1);
  });
});

describe("the PSBT download", () => {
  it("serves a pending LTC refund's PSBT as refund-<id>.psbt, the bytes of the base64 the refund shows", async () => {
    const keys = await t.merchant({ name: "Dash Psbt" });
    const tx = await paid(keys, LTC_TEST_ADDRESS);
    // The test helper's receipt is no chain output: made one (txid:vout), as the watcher records them.
    const hash = "cd".repeat(32);
    await t.db.paymentReceipt.updateMany({ where: { transactionId: tx.id }, data: { key: `${hash}:0`, txHash: hash, source: "chain" } });
    const owner = await signedInAs(t, keys.id, "owner");
    const created = await owner.post(`${API}/transactions/${tx.id}/refunds`, { amount_kind: "full", deduct_network_fee: true, fee_rate: "2" });
    expect(created.status).toBe(201);
    const r = created.body.data;
    expect(r.payment).toMatchObject({ problem: null, psbt: expect.stringMatching(/^cHNidP8/) });

    const file = await fetch(`${t.url}${API}/refunds/${r.id}/psbt?mode=test`, { headers: { cookie: owner.cookie } });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/octet-stream");
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="refund-${r.id}.psbt"`);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("psbt\xff");
    expect(bytes.toString("base64")).toBe(r.payment.psbt);

    // A viewer may download it too (reading); another mode's refund does not exist.
    const viewer = await signedInAs(t, keys.id, "viewer");
    expect((await fetch(`${t.url}${API}/refunds/${r.id}/psbt`, { headers: { cookie: viewer.cookie } })).status).toBe(200);
    const live = await owner.get(`${API}/refunds/${r.id}/psbt?mode=live`);
    expect(live.status).toBe(404);
    expect(live.body.message).toBe(`No refund with id '${r.id}'`);
  });
});

describe("refusals, with the API's errors and nothing changed", () => {
  async function refused(client: DashboardClient, path: string, body: unknown, status: number) {
    const before = await refundsState();
    const res = await client.post(path, body);
    expect(res.status).toBe(status);
    expect(res.body.status).toBe("error");
    expect(await refundsState()).toBe(before);
    return res.body;
  }

  it("refuses a viewer (403 role_forbidden) but lets it read", async () => {
    const keys = await t.merchant({ name: "Dash Viewer" });
    const tx = await paid(keys, LTC_TEST_ADDRESS);
    const viewer = await signedInAs(t, keys.id, "viewer");
    const body = await refused(viewer, `${API}/transactions/${tx.id}/refunds`, { amount_kind: "full" }, 403);
    expect(body).toMatchObject({
      reason: "role_forbidden",
      message: "Your role (viewer) cannot manage refunds; ask an owner of this merchant for the owner or developer role",
    });
    const owner = await signedInAs(t, keys.id, "owner");
    const r = (await owner.post(`${API}/transactions/${tx.id}/refunds`, { amount_kind: "full" })).body.data;
    expect((await refused(viewer, `${API}/refunds/${r.id}/cancel`, {}, 403)).reason).toBe("role_forbidden");
    expect((await refused(viewer, `${API}/refunds/${r.id}/mark_paid`, { tx_hash: TX_HASH }, 403)).reason).toBe("role_forbidden");
    expect((await viewer.get(`${API}/refunds/${r.id}`)).body.data.id).toBe(r.id);
    expect((await viewer.get(`${API}/transactions/${tx.id}/refunds`)).body.data.refunds).toHaveLength(1);
  });

  it("refuses more than what is left (422 naming it), an invalid or other-network address (400), nothing received (422)", async () => {
    const keys = await t.merchant({ name: "Dash Limits" });
    const tx = await paid(keys, LTC_TEST_ADDRESS);
    const owner = await signedInAs(t, keys.id, "owner");
    const over = await refused(
      owner,
      `${API}/transactions/${tx.id}/refunds`,
      { amount_kind: "custom", amount: tx.amountPaid.plus(1).toFixed(), amount_currency: "LTC" },
      422,
    );
    expect(over).toMatchObject({
      reason: "over_refundable",
      message: `The refund is more than what is left to refund: ${tx.amountPaid.toFixed()} LTC can still be refunded`,
    });

    await t.db.$executeRaw`UPDATE transactions SET refund_address = ${LTC_MAINNET_ADDRESS} WHERE id = ${tx.id}`;
    const address = await refused(owner, `${API}/transactions/${tx.id}/refunds`, { amount_kind: "full" }, 400);
    expect(address.message).toBe("Missing or invalid refund fields");
    expect(address.errors).toEqual([
      {
        field: "refund_address",
        message: expect.stringMatching(/^the transaction's refund_address is not a valid LTC address on litecoin for test mode/),
      },
    ]);
    const fields = await refused(owner, `${API}/transactions/${tx.id}/refunds`, { amount_kind: "half" }, 400);
    expect(fields.errors).toEqual([{ field: "amount_kind", message: "amount_kind must be one of full, overpaid, custom" }]);

    const nothing = await refused(owner, `${API}/transactions/${await unpaid(keys)}/refunds`, {}, 422);
    expect(nothing).toMatchObject({
      reason: "nothing_received",
      message: "Nothing can be refunded: no confirmed payment has arrived on this transaction",
    });
  });

  it("answers 404 for another merchant's transaction or refund, and for the other mode's", async () => {
    const keys = await t.merchant({ name: "Dash Mine" });
    const other = await t.merchant({ name: "Dash Theirs" });
    const theirs = await paid(other, LTC_TEST_ADDRESS);
    const theirOwner = await signedInAs(t, other.id, "owner");
    const theirRefund = (await theirOwner.post(`${API}/transactions/${theirs.id}/refunds`, {})).body.data;
    const owner = await signedInAs(t, keys.id, "owner");

    const tx = await refused(owner, `${API}/transactions/${theirs.id}/refunds`, {}, 404);
    expect(tx).toMatchObject({ reason: "transaction_not_found", message: `No transaction with id '${theirs.id}'` });
    const read = await owner.get(`${API}/refunds/${theirRefund.id}`);
    expect(read.status).toBe(404);
    expect(read.body).toMatchObject({ reason: "refund_not_found", message: `No refund with id '${theirRefund.id}'` });
    expect((await refused(owner, `${API}/refunds/${theirRefund.id}/cancel`, {}, 404)).reason).toBe("refund_not_found");
    const live = await theirOwner.get(`${API}/refunds/${theirRefund.id}?mode=live`);
    expect(live.status).toBe(404);
    expect(live.body.message).toBe(`No refund with id '${theirRefund.id}'`);
  });

  it("refuses every change of a deactivated merchant (403 merchant_inactive)", async () => {
    const keys = await t.merchant({ name: "Dash Closed" });
    const tx = await paid(keys, LTC_TEST_ADDRESS);
    const owner = await signedInAs(t, keys.id, "owner");
    await t.gateway.operator.updateMerchant(keys.id, { active: false });
    const body = await refused(owner, `${API}/transactions/${tx.id}/refunds`, {}, 403);
    expect(body.reason).toBe("merchant_inactive");
    expect(body.message).toMatch(/^This merchant is deactivated, so its dashboard is read-only/);
  });
});

describe("the list's refunds filter and Refunded column, and the CSV's", () => {
  it("filters by refunds and shows what was refunded, in the list and as the CSV's last column", async () => {
    const keys = await t.merchant({ name: "Dash Lists" });
    const none = await paid(keys, LTC_TEST_ADDRESS);
    const pending = await paid(keys, LTC_TEST_ADDRESS);
    const canceled = await paid(keys, LTC_TEST_ADDRESS);
    const owner = await signedInAs(t, keys.id, "owner");
    const half = pending.amountPaid.div(2).toFixed();
    const made = await owner.post(`${API}/transactions/${pending.id}/refunds`, { amount_kind: "custom", amount: half, amount_currency: "LTC" });
    expect(made.status).toBe(201);
    const toCancel = (await owner.post(`${API}/transactions/${canceled.id}/refunds`, {})).body.data;
    expect((await owner.post(`${API}/refunds/${toCancel.id}/cancel`)).status).toBe(200);

    const all = await owner.get(`${API}/transactions`);
    const row = (id: string) => all.body.data.transactions.find((x: { id: string }) => x.id === id);
    expect(row(none.id)).toMatchObject({ refunded: null, refunds_pending: 0 });
    expect(row(pending.id)).toMatchObject({ refunded: half, refunds_pending: 1 });
    expect(row(canceled.id)).toMatchObject({ refunded: null, refunds_pending: 0 });

    const ids = async (query: string) => (await owner.get(`${API}/transactions?${query}`)).body.data.transactions.map((x: { id: string }) => x.id);
    expect(await ids("refunds=any")).toEqual([canceled.id, pending.id]);
    expect(await ids("refunds=pending")).toEqual([pending.id]);
    expect(await ids("refunds=succeeded")).toEqual([]);
    const bad = await owner.get(`${API}/transactions?refunds=some`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Invalid query parameter: refunds must be one of any, pending, succeeded");
    // The API's list has no such filter: the dashboard's alone.
    const rest = await fetch(`${t.url}/v1/transactions?refunds=any`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    expect(rest.status).toBe(400);

    const csv = await fetch(`${t.url}${API}/transactions.csv?refunds=any`, { headers: { cookie: owner.cookie } });
    expect(csv.status).toBe(200);
    const records: string[][] = parse(await csv.text());
    expect(records[0]).toEqual(EXPORT_CSV_HEADER);
    expect(records[0]?.at(-1)).toBe("refunded");
    expect(records.slice(1).map((r) => [r[0], r.at(-1)])).toEqual([
      [canceled.id, ""],
      [pending.id, half],
    ]);
  });
});

// Refunds over REST (issue 26): a refund object on a transaction that received money, its amount
// rules and valuations, where it goes, cancel and mark paid, its events through the outbox, and every
// bad input of the issue answered with a clear 4xx and nothing changed.
import { describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { refundSummaries } from "../../src/core/refunds/refunds.ts";
import type { Stores } from "../../src/core/stores/index.ts";
import { initializeBody } from "../support/builders.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import { verifiedPayloads, type WebhookReceiver } from "../support/webhook-receiver.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let other: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  ({ t, receiver } = started);
  keys = await t.merchant({ name: "Refunds Ltd", testWebhookUrl: receiver.url });
  other = await t.merchant({ name: "Someone Else" });
});

// Test-network addresses of the coins (derived from throw-away test keys).
const LTC_TEST_ADDRESS = "tltc1q33andx3shykl4uhyerlfhkl7u64mwvz9sa0pdn";
const ETH_TEST_ADDRESS = "0x12ad649b19DeB24aCBaB85fE2253f68b17C423C5";
/** A Litecoin main-network address: valid, but of the other network than test mode's. */
const LTC_MAINNET_ADDRESS = "ltc1qqurswpc8qurswpc8qurswpc8qurswpc8p4r4uu";

const secret = (k = keys) => ({ authorization: `Bearer ${k.testSecretKey}` });

const get = async (path: string, headers: Record<string, string> = secret()) => {
  const res = await fetch(`${t.url}${path}`, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

const postWith = async (path: string, body: unknown, headers: Record<string, string>) => {
  const res = await fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

/** A test transaction paid in `currencyId` (LTC unless said), `amount` of it arrived and counted (all that is due unless said). */
async function paid(options: { currencyId?: string; refundAddress?: string; amount?: string; pay?: boolean } = {}) {
  const init = await t.post("/v1/transaction", initializeBody({ amount: "100" }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(init.status).toBe(201);
  const id: string = init.body.data.id;
  const body: Record<string, string> = { currency_id: options.currencyId ?? "7" };
  if (options.refundAddress) body.refund_address = options.refundAddress;
  const pay = await t.post(`/v1/transaction/${id}/pay`, body, secret());
  expect(pay.status).toBe(200);
  if (options.pay !== false) {
    const paidRes = await t.post(`/v1/test_helpers/transaction/${id}/payment`, options.amount ? { amount: options.amount } : {}, secret());
    expect(paidRes.status).toBe(200);
  }
  const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
  return {
    id,
    reference: row.reference,
    amountPaid: new Decimal(row.amountPaid?.toString() ?? 0),
    paymentAmount: new Decimal(row.paymentAmount?.toString() ?? 0),
    quoteRate: new Decimal(row.quoteRate?.toString() ?? 0),
  };
}

const refund = (id: string, body: unknown = {}, headers: Record<string, string> = secret()) =>
  postWith(`/v1/transaction/${id}/refunds`, body, headers);

/** What a refused request must leave as it was: the refunds, the refund events and the idempotency keys. */
async function snapshot() {
  const [refunds, events, keysRemembered] = await Promise.all([
    t.db.refund.findMany({ orderBy: { id: "asc" } }),
    t.db.webhookEvent.count({ where: { type: { startsWith: "refund." } } }),
    t.db.idempotencyKey.count({ where: { refundId: { not: null } } }),
  ]);
  return JSON.stringify({ refunds, events, keysRemembered });
}

async function expectRefused(request: () => Promise<{ status: number; body: any }>, status: number, message: string | RegExp) {
  const before = await snapshot();
  const res = await request();
  expect(res.status).toBe(status);
  expect(res.body.status).toBe("error");
  if (typeof message === "string") expect(res.body.message).toBe(message);
  else expect(res.body.message).toMatch(message);
  expect(await snapshot()).toBe(before);
  return res.body;
}

describe("making a refund", () => {
  it("refunds the whole payment to the transaction's refund_address, valued at the locked rate, with its event", async () => {
    const tx = await paid({ refundAddress: LTC_TEST_ADDRESS });
    const res = await refund(tx.id, { amount_kind: "full" });
    expect(res.status).toBe(201);
    const r = res.body.data;
    expect(r.id).toMatch(/^re_[0-9a-f-]{36}$/);
    expect(r).toMatchObject({
      object: "refund",
      transaction_id: tx.id,
      transaction_reference: tx.reference,
      is_live: false,
      state: "pending",
      amount_kind: "full",
      amount: tx.amountPaid.toFixed(),
      currency: "LTC",
      network: "litecoin",
      fiat_currency: "USD",
      valuation: "locked_rate",
      rate: tx.quoteRate.toFixed(),
      destination: LTC_TEST_ADDRESS,
      destination_source: "refund_address",
      refund_url: null,
      deduct_network_fee: false,
      amount_to_customer: tx.amountPaid.toFixed(),
      tx_hash: null,
      paid_by: null,
    });
    expect(r.fiat_amount).toBe(tx.amountPaid.times(tx.quoteRate).toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed(2));
    // The test helper's payment has no chain output to spend: the URI and QR alone, and why.
    expect(r.payment).toMatchObject({ psbt: null, evm_transaction: null, problem: expect.stringMatching(/chain output/) });
    expect(r.payment.uri).toContain(LTC_TEST_ADDRESS);
    expect(r.payment.uri).toContain(`amount=${tx.amountPaid.toFixed()}`);
    expect(r.payment.qr).toMatch(/^data:image\/png;base64,/);

    const events = await t.db.webhookEvent.findMany({ where: { refundId: r.id } });
    expect(events.map((e) => e.type)).toEqual(["refund.created"]);
    const payload = JSON.parse(events[0]?.body ?? "{}");
    expect(payload.event).toBe("refund.created");
    expect(payload.data.refund.id).toBe(r.id);
    expect(payload.data.transaction).toMatchObject({ id: tx.id, reference: tx.reference, payment_currency_slug: "LTC" });

    const again = await get(`/v1/refunds/${r.id}`);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: r.id, state: "pending", destination: LTC_TEST_ADDRESS });

    const transaction = await get(`/v1/transaction/${tx.id}`);
    expect(transaction.body.data.amount_refundable).toBe("0");
    expect(transaction.body.data.refunds).toEqual([{ id: r.id, state: "pending", amount: tx.amountPaid.toFixed(), created_at: r.created_at }]);
    // The spec's fields are all still there.
    expect(transaction.body.data).toMatchObject({ id: tx.id, status: "SUCCESSFUL", reference: tx.reference });
  });

  it("hands out a claim link once when the transaction has no refund_address", async () => {
    const tx = await paid();
    const res = await refund(tx.id, { amount_kind: "custom", amount: "10.00", amount_currency: "USD" });
    expect(res.status).toBe(201);
    const r = res.body.data;
    expect(r.destination).toBeNull();
    expect(r.destination_source).toBe("claim");
    expect(r.refund_url).toMatch(new RegExp(`^${t.url.replace(/[.]/g, "\\.")}/refund/[0-9A-Za-z]{32}$`));
    expect(new Date(r.claim_expires_at).getTime() - new Date(r.created_at).getTime()).toBe(30 * 86_400_000);
    // Only the token's hash is stored, and the link is not shown again.
    const row = await t.db.refund.findUniqueOrThrow({ where: { id: r.id } });
    expect(row.claimTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(r.refund_url.split("/").pop());
    expect((await get(`/v1/refunds/${r.id}`)).body.data.refund_url).toBeNull();
    // 10 USD at the locked rate, rounded down to the coin's precision.
    expect(r.amount).toBe(new Decimal(10).div(tx.quoteRate).toDecimalPlaces(8, Decimal.ROUND_DOWN).toFixed());
    expect(r.fiat_amount).toBe(new Decimal(r.amount).times(tx.quoteRate).toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed(2));
  });

  it("refunds what was overpaid, and a custom crypto amount valued at today's rate", async () => {
    const tx = await paid();
    const extra = await t.post(`/v1/test_helpers/transaction/${tx.id}/payment`, { amount: "0.5" }, secret());
    expect(extra.status).toBe(200);
    const over = await refund(tx.id, { amount_kind: "overpaid" });
    expect(over.status).toBe(201);
    expect(over.body.data.amount).toBe("0.5");

    const custom = await refund(tx.id, {
      amount_kind: "custom",
      amount: "0.001",
      amount_currency: "LTC",
      valuation: "current_rate",
      fee_rate: "3",
      deduct_network_fee: true,
    });
    expect(custom.status).toBe(201);
    expect(custom.body.data).toMatchObject({ amount: "0.001", valuation: "current_rate", fee_rate: "3", deduct_network_fee: true });
    const left = (await get(`/v1/transaction/${tx.id}/refunds`)).body;
    expect(left.data.map((r: any) => r.id)).toEqual([over.body.data.id, custom.body.data.id]);
    expect(left.meta.amount_refundable).toBe(tx.amountPaid.plus("0.5").minus("0.5").minus("0.001").toFixed());
  });

  it("keeps payment events one per transaction and type while several refunds each get their own", async () => {
    const tx = await paid();
    const a = await refund(tx.id, { amount_kind: "custom", amount: "0.01", amount_currency: "LTC" });
    const b = await refund(tx.id, { amount_kind: "custom", amount: "0.01", amount_currency: "LTC" });
    expect([a.status, b.status]).toEqual([201, 201]);
    const events = await t.db.webhookEvent.findMany({ where: { transactionId: tx.id }, orderBy: { seq: "asc" } });
    expect(events.filter((e) => e.type === "refund.created").map((e) => e.refundId)).toEqual([a.body.data.id, b.body.data.id]);
    expect(events.filter((e) => e.type === "payment.received")).toHaveLength(1);
    await expect(
      t.db.webhookEvent.create({
        data: {
          id: "evt_dup",
          merchantId: keys.id,
          transactionId: tx.id,
          refundId: a.body.data.id,
          type: "refund.created",
          isLive: false,
          body: "{}",
          createdAt: new Date(),
        },
      }),
    ).rejects.toThrow();
  });
});

describe("bad input: a clear 4xx and nothing changed", () => {
  it("refuses a transaction that received nothing", async () => {
    const tx = await paid({ pay: false });
    await expectRefused(() => refund(tx.id), 422, "Nothing can be refunded: no confirmed payment has arrived on this transaction");
  });

  it("refuses a transaction of the other mode and of another merchant as not found", async () => {
    const tx = await paid();
    const message = `No transaction with id '${tx.id}'`;
    await expectRefused(() => refund(tx.id, {}, { authorization: `Bearer ${keys.liveSecretKey}` }), 404, message);
    await expectRefused(() => refund(tx.id, {}, secret(other)), 404, message);
    await expectRefused(() => refund("not-a-uuid", {}), 404, "No transaction with id 'not-a-uuid'");
  });

  it("refuses a public key", async () => {
    const tx = await paid();
    await expectRefused(() => refund(tx.id, {}, { authorization: `Bearer ${keys.testPublicKey}` }), 401, /Invalid Secret Key/);
  });

  it("refuses more than what is left, naming what is left", async () => {
    const tx = await paid();
    const over = tx.amountPaid.plus("0.00000001").toFixed();
    await expectRefused(
      () => refund(tx.id, { amount_kind: "custom", amount: over, amount_currency: "LTC" }),
      422,
      `The refund is more than what is left to refund: ${tx.amountPaid.toFixed()} LTC can still be refunded`,
    );
    const part = await refund(tx.id, { amount_kind: "custom", amount: "0.01", amount_currency: "LTC" });
    expect(part.status).toBe(201);
    const left = tx.amountPaid.minus("0.01").toFixed();
    await expectRefused(
      () => refund(tx.id, { amount_kind: "full" }),
      422,
      `The refund is more than what is left to refund: ${left} LTC can still be refunded`,
    );
    await expectRefused(
      () => refund(tx.id, { amount_kind: "overpaid" }),
      422,
      `Nothing was overpaid on this transaction; ${left} LTC can still be refunded`,
    );
  });

  it("refuses a refund_address that is no longer valid for the coin and network", async () => {
    const tx = await paid({ refundAddress: LTC_TEST_ADDRESS });
    // As if the address had been stored under another network's rules: it is checked again.
    await t.db.$executeRaw`UPDATE transactions SET refund_address = ${LTC_MAINNET_ADDRESS} WHERE id = ${tx.id}`;
    const body = await expectRefused(() => refund(tx.id), 400, "Missing or invalid refund fields");
    expect(body.errors).toEqual([
      {
        field: "refund_address",
        message: expect.stringMatching(/^the transaction's refund_address is not a valid LTC address on litecoin for test mode/),
      },
    ]);
    await t.db.$executeRaw`UPDATE transactions SET refund_address = ${ETH_TEST_ADDRESS} WHERE id = ${tx.id}`;
    await expectRefused(() => refund(tx.id), 400, "Missing or invalid refund fields");
  });

  it("refuses bad fields, each named", async () => {
    const tx = await paid();
    const cases: [unknown, string, RegExp][] = [
      [{ amount_kind: "most" }, "amount_kind", /must be one of full, overpaid, custom/],
      [{ amount_kind: "custom", amount_currency: "LTC" }, "amount", /amount is required when amount_kind is custom/],
      [{ amount_kind: "custom", amount: "1" }, "amount_currency", /amount_currency is required when amount_kind is custom/],
      [{ amount_kind: "custom", amount: "-1", amount_currency: "LTC" }, "amount", /positive decimal/],
      [{ amount_kind: "custom", amount: "1", amount_currency: "EUR" }, "amount_currency", /must be USD .* or LTC/],
      [{ amount_kind: "custom", amount: "0.000000001", amount_currency: "LTC" }, "amount", /more than 8 decimal places/],
      [{ amount_kind: "full", amount: "1" }, "amount", /only when amount_kind is custom/],
      [{ valuation: "yesterday" }, "valuation", /locked_rate or current_rate/],
      [{ fee_rate: "0.5" }, "fee_rate", /from 1 to 10000 sat\/vB/],
      [{ deduct_network_fee: "yes" }, "deduct_network_fee", /true or false/],
    ];
    for (const [body, field, message] of cases) {
      const refused = await expectRefused(() => refund(tx.id, body), 400, "Missing or invalid refund fields");
      expect(refused.errors).toEqual([{ field, message: expect.stringMatching(message) }]);
    }
    const eth = await paid({ currencyId: "6" });
    const refused = await expectRefused(() => refund(eth.id, { fee_rate: "5" }), 400, "Missing or invalid refund fields");
    expect(refused.errors).toEqual([{ field: "fee_rate", message: "fee_rate (sat/vB) applies to BTC and LTC only, not ETH" }]);
  });

  it("replays the same Idempotency-Key with the same parameters, and refuses it with others", async () => {
    const tx = await paid();
    const key = { ...secret(), "idempotency-key": `refund-${tx.id}` };
    const first = await refund(tx.id, { amount_kind: "custom", amount: "0.02", amount_currency: "LTC" }, key);
    expect(first.status).toBe(201);
    const replay = await refund(tx.id, { amount_kind: "custom", amount: "0.02", amount_currency: "LTC" }, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.data.id).toBe(first.body.data.id);
    expect(await t.db.refund.count({ where: { transactionId: tx.id } })).toBe(1);
    await expectRefused(
      () => refund(tx.id, { amount_kind: "custom", amount: "0.03", amount_currency: "LTC" }, key),
      409,
      "This Idempotency-Key was already used with other parameters; send a new key for a new request",
    );
    // The key of a refund is not the key of another operation either.
    const pay = await t.post(`/v1/transaction/${tx.id}/pay`, { currency_id: "7" }, key);
    expect(pay.status).toBe(409);
  });
});

describe("cancel and mark paid", () => {
  it("cancels a pending refund once, with its event, and gives the amount back to refund", async () => {
    const tx = await paid();
    const r = (await refund(tx.id, { amount_kind: "full" })).body.data;
    const canceled = await postWith(`/v1/refunds/${r.id}/cancel`, {}, secret());
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ state: "canceled" });
    expect(canceled.body.data.canceled_at).not.toBeNull();
    expect((await t.db.webhookEvent.findMany({ where: { refundId: r.id } })).map((e) => e.type).sort()).toEqual([
      "refund.canceled",
      "refund.created",
    ]);
    expect((await get(`/v1/transaction/${tx.id}`)).body.data.amount_refundable).toBe(tx.amountPaid.toFixed());
    await expectRefused(
      () => postWith(`/v1/refunds/${r.id}/cancel`, {}, secret()),
      409,
      "The refund is canceled, not pending: only a pending refund can change",
    );
    await expectRefused(() => postWith(`/v1/refunds/${r.id}/cancel`, {}, secret(other)), 404, `No refund with id '${r.id}'`);
    await expectRefused(() => postWith("/v1/refunds/re_nothing/cancel", {}, secret()), 404, "No refund with id 're_nothing'");
  });

  it("records a merchant's tx_hash for the chain side to verify, then closes with refund.succeeded", async () => {
    const tx = await paid({ refundAddress: LTC_TEST_ADDRESS });
    const r = (await refund(tx.id)).body.data;
    const bad = await expectRefused(
      () => postWith(`/v1/refunds/${r.id}/mark_paid`, { tx_hash: "abc" }, secret()),
      400,
      "Missing or invalid refund fields",
    );
    expect(bad.errors).toEqual([{ field: "tx_hash", message: expect.stringMatching(/64 hexadecimal digits/) }]);
    const hash = "AB".repeat(32);
    const marked = await postWith(`/v1/refunds/${r.id}/mark_paid`, { tx_hash: hash }, secret());
    expect(marked.status).toBe(200);
    expect(marked.body.data).toMatchObject({ state: "pending", tx_hash: hash.toLowerCase(), paid_by: "merchant", verification: "pending" });

    // The chain side's verdict, through the core.
    const done = await t.gateway.refunds.refundSucceeded(r.id, hash.toLowerCase(), "merchant");
    expect(done !== "tx_taken" && done?.state).toBe("succeeded");
    const shown = (await get(`/v1/refunds/${r.id}`)).body.data;
    expect(shown).toMatchObject({ state: "succeeded", verification: "verified", paid_by: "merchant" });
    expect(shown.succeeded_at).not.toBeNull();
    expect(await t.gateway.refunds.refundSucceeded(r.id, hash, "watcher")).toBeNull();
    await expectRefused(
      () => postWith(`/v1/refunds/${r.id}/cancel`, {}, secret()),
      409,
      "The refund is succeeded, not pending: only a pending refund can change",
    );
    await expectRefused(() => postWith(`/v1/refunds/${r.id}/mark_paid`, { tx_hash: hash }, secret()), 409, /not pending/);
    // A succeeded refund still counts against what is left.
    expect((await get(`/v1/transaction/${tx.id}`)).body.data.amount_refundable).toBe("0");

    await t.dispatcher().drain();
    const delivered = verifiedPayloads(receiver, keys.webhookSecret, tx.reference).map((p) => p.event as string);
    expect(delivered).toEqual(expect.arrayContaining(["refund.created", "refund.succeeded"]));
    const succeeded = verifiedPayloads(receiver, keys.webhookSecret, tx.reference).find((p) => (p.event as string) === "refund.succeeded") as any;
    expect(succeeded.data.refund).toMatchObject({ id: r.id, state: "succeeded", tx_hash: hash.toLowerCase() });
  });

  it("refuses mark_paid on a refund nobody has claimed yet", async () => {
    const tx = await paid();
    const r = (await refund(tx.id)).body.data;
    const refused = await expectRefused(
      () => postWith(`/v1/refunds/${r.id}/mark_paid`, { tx_hash: "cd".repeat(32) }, secret()),
      400,
      "Missing or invalid refund fields",
    );
    expect(refused.errors[0].message).toMatch(/no destination yet/);
  });

  it("closes one refund per chain transaction: a hash that closed a refund is refused at mark_paid (409) and by the chain side", async () => {
    const tx = await paid({ refundAddress: LTC_TEST_ADDRESS });
    const custom = { amount_kind: "custom", amount: "0.001", amount_currency: "LTC" };
    const first = (await refund(tx.id, custom)).body.data;
    const second = (await refund(tx.id, custom)).body.data;
    const hash = "ef".repeat(32);
    const closed = await t.gateway.refunds.refundSucceeded(first.id, hash, "watcher");
    expect(closed !== "tx_taken" && closed?.state).toBe("succeeded");
    expect(await t.gateway.refunds.refundTxHashesTaken(false, [hash, "01".repeat(32)])).toEqual(new Set([hash]));
    // In the other mode the hash names another chain's transaction: nothing taken there.
    expect(await t.gateway.refunds.refundTxHashesTaken(true, [hash])).toEqual(new Set());

    const refused = await expectRefused(
      () => postWith(`/v1/refunds/${second.id}/mark_paid`, { tx_hash: hash.toUpperCase() }, secret()),
      409,
      `The transaction ${hash} already closed another refund: one chain transaction closes one refund; pay this refund with a transaction of its own`,
    );
    expect(refused.reason).toBe("refund_tx_hash_taken");
    // The chain side (another instance, or a race past mark_paid's check): the database's unique index refuses it.
    expect(await t.gateway.refunds.refundSucceeded(second.id, hash, "watcher")).toBe("tx_taken");
    expect(await t.gateway.refunds.refundSucceeded(second.id, hash, "merchant")).toBe("tx_taken");
    const still = (await get(`/v1/refunds/${second.id}`)).body.data;
    expect([still.state, still.tx_hash, still.succeeded_at]).toEqual(["pending", null, null]);
    expect(await t.db.webhookEvent.count({ where: { refundId: second.id, type: "refund.succeeded" } })).toBe(0);

    // Its own transaction closes it.
    const own = "fe".repeat(32);
    expect((await postWith(`/v1/refunds/${second.id}/mark_paid`, { tx_hash: own }, secret())).status).toBe(200);
    const done = await t.gateway.refunds.refundSucceeded(second.id, own, "merchant");
    expect(done !== "tx_taken" && done?.txHash).toBe(own);
  });
});

describe("lists", () => {
  it("pages the merchant's refunds newest first with the cursor of /v1/transactions", async () => {
    const tx = await paid();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await refund(tx.id, { amount_kind: "custom", amount: "0.001", amount_currency: "LTC" })).body.data.id);
    const first = await get(`/v1/refunds?transaction=${tx.id}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.has_more).toBe(true);
    const second = await get(`/v1/refunds?transaction=${tx.id}&limit=2&starting_after=${first.body.data[1].id}`);
    expect(second.body.has_more).toBe(false);
    const seen = [...first.body.data, ...second.body.data].map((r: any) => r.id);
    expect([...seen].sort()).toEqual([...made].sort());
    expect(new Set(seen).size).toBe(3);
    const stamps = [...first.body.data, ...second.body.data].map((r: any) => r.created_at);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    // Another merchant and the other mode see none of them.
    expect((await get("/v1/refunds", secret(other))).body.data).toEqual([]);
    expect((await get("/v1/refunds", { authorization: `Bearer ${keys.liveSecretKey}` })).body.data).toEqual([]);

    const unknown = await get("/v1/refunds?starting_after=re_00000000-0000-0000-0000-000000000000");
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/starting_after names no object of this merchant and mode/);
    const typo = await get("/v1/refunds?limt=2");
    expect(typo.status).toBe(400);
    expect(typo.body.message).toBe("Invalid query parameter: limt is not a parameter of this list");

    // The Events API lists the refund events with the payment events (checked against the OpenAPI document too).
    const events = await get(`/v1/events?transaction=${tx.id}&limit=100`);
    expect(events.status).toBe(200);
    expect(events.body.data.filter((e: any) => e.type === "refund.created")).toHaveLength(3);

    const listed = await get(`/v1/transactions?limit=100`);
    const row = listed.body.data.find((d: any) => d.id === tx.id);
    expect(row.refunds).toHaveLength(3);
    expect(row.amount_refundable).toBe(tx.amountPaid.minus("0.003").toFixed());
  });
});

describe("the refunds a transaction reply reads", () => {
  /** The stores, with the refunds' list by transaction recording the ids it is asked for (the real query still runs). */
  function listingRefunds(): { stores: Stores; asked: string[][] } {
    const asked: string[][] = [];
    const refunds = new Proxy(t.stores.refunds, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== "listForTransactions" || typeof value !== "function") return value;
        return (ids: readonly string[]) => {
          asked.push([...ids]);
          return value.apply(target, [ids]);
        };
      },
    });
    return { stores: { ...t.stores, refunds }, asked };
  }

  const record = async (id: string) => {
    const found = await t.stores.transactions.findFor(id, keys.id, false);
    if (!found) throw new Error(`transaction ${id} not found`);
    return found;
  };

  it("reads none for transactions that received nothing, and those of one that did", async () => {
    const init = await t.post("/v1/transaction", initializeBody({ amount: "10" }), { authorization: `Bearer ${keys.testPublicKey}` });
    expect(init.status).toBe(201);
    const unpaid = await paid({ pay: false });
    const received = await paid();
    const made = await refund(received.id, { amount_kind: "custom", amount: "0.01", amount_currency: "LTC" });
    expect(made.status).toBe(201);
    const transactions = await Promise.all([init.body.data.id, unpaid.id, received.id].map(record));

    const { stores, asked } = listingRefunds();
    const summaries = await refundSummaries({ stores }, transactions);
    expect(asked).toEqual([[received.id]]);
    expect(summaries.get(init.body.data.id)).toEqual({ refunds: [], amount_refundable: null });
    expect(summaries.get(unpaid.id)).toEqual({ refunds: [], amount_refundable: "0" });
    expect(summaries.get(received.id)?.refunds.map((r) => [r.id, r.amount])).toEqual([[made.body.data.id, "0.01"]]);
    expect(summaries.get(received.id)?.amount_refundable).toBe(received.amountPaid.minus("0.01").toFixed());

    const none = listingRefunds();
    await refundSummaries({ stores: none.stores }, transactions.slice(0, 2));
    expect(none.asked).toEqual([]);
    // The reply of the unpaid one as REST shows it: the same fields.
    const shown = await get(`/v1/transaction/${unpaid.id}`);
    expect(shown.status).toBe(200);
    expect([shown.body.data.refunds, shown.body.data.amount_refundable]).toEqual([[], "0"]);
  });
});

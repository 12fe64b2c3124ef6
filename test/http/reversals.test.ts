// Watched until final, and reversals told (issue 24, goal 3): after SUCCESSFUL a transaction stays on
// the watch list until its chain receipts are final; a counted receipt that leaves the chain then is
// REVERSED, and when what is left no longer covers the payment, payment.reversed is written with the
// change (the outbox), shown in REST, GraphQL and the webhook payload. A replaceable (BIP 125)
// payment is never counted at 0 confirmations. Through the gateway, as the watcher calls it.
import { GraphQLClient } from "graphql-request";
import { describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { ObservedReceipt } from "../../src/core/ports.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import { verifiedPayloads, type WebhookReceiver } from "../support/webhook-receiver.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  ({ t, receiver } = started);
  keys = await t.merchant({ name: "Reversals Ltd", testWebhookUrl: receiver.url });
});

const secret = () => ({ authorization: `Bearer ${keys.testSecretKey}` });

async function pending(currencyId: string, amount = "100"): Promise<{ id: string; due: Decimal }> {
  const init = await t.post(
    "/v1/transaction",
    { customer: { email: "ada@example.com" }, currency: "USD", amount },
    { authorization: `Bearer ${keys.testPublicKey}` },
  );
  expect(init.status).toBe(201);
  const pay = await t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: currencyId }, secret());
  expect(pay.status).toBe(200);
  return { id: init.body.data.id, due: new Decimal(String(pay.body.data.payment_amount)) };
}

const get = async (id: string) => {
  const res = await fetch(`${t.url}/v1/transaction/${id}`, { headers: secret() });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: any }).data;
};

let nextHash = 1;
const output = (amount: Decimal, confirmations: number, extra: Partial<ObservedReceipt> = {}): ObservedReceipt => {
  const txHash = (nextHash++).toString(16).padStart(64, "0");
  return { key: `${txHash}:0`, txHash, amount, confirmations, blockHeight: confirmations > 0 ? 1000 : null, ...extra };
};
const deeper = (r: ObservedReceipt, confirmations: number): ObservedReceipt => ({ ...r, confirmations, blockHeight: r.blockHeight ?? 1000 });

/** What the watcher records for an LTC address: 6 confirmations count, 12 are final. */
const watched = (id: string, receipts: ObservedReceipt[], required = 6) =>
  t.gateway.payments.applyReceipts(id, { receipts, requiredConfirmations: required, finalityConfirmations: 12, source: "chain", complete: true });

const eventTypes = async (id: string) =>
  (await t.db.webhookEvent.findMany({ where: { transactionId: id }, orderBy: { seq: "asc" } })).map((e) => e.type);
const onWatchList = async (id: string) => (await t.gateway.payments.watchList(0, 10_000)).some((w) => w.id === id);

describe("watched until final", () => {
  it("keeps a SUCCESSFUL transaction on the watch list until its receipts are final, then lets it go", async () => {
    const { id, due } = await pending("7");
    const paid = output(due, 6);
    const succeeded = await watched(id, [paid]);
    expect([succeeded.status, succeeded.finalAt]).toEqual(["SUCCESSFUL", null]);
    expect(await onWatchList(id)).toBe(true);
    expect((await watched(id, [deeper(paid, 11)])).finalAt).toBeNull();
    const final = await watched(id, [deeper(paid, 12)]);
    expect(final.finalAt).toBeInstanceOf(Date);
    expect(await onWatchList(id)).toBe(false);
    expect(await eventTypes(id)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
  });

  it("stops watching a SUCCESSFUL transaction whose window closed longer ago than the finality watch", async () => {
    const { id, due } = await pending("7");
    await watched(id, [output(due, 6)]);
    const closed = (await t.db.transaction.findUniqueOrThrow({ where: { id } })).expiresAt as Date;
    const within = Date.now() - closed.getTime() + 60_000;
    expect((await t.gateway.payments.watchList(0, 10_000, undefined, within)).some((w) => w.id === id)).toBe(true);
    expect((await t.gateway.payments.watchList(0, 10_000, undefined, within - 120_000)).some((w) => w.id === id)).toBe(false);
  });

  it("lets an EVM node's finalized tag decide where it tells: not final while uncovered however deep, final once covered", async () => {
    const { id, due } = await pending("6");
    const transfer = output(due, 12);
    const eth = (receipt: ObservedReceipt) =>
      t.gateway.payments.applyReceipts(id, {
        receipts: [receipt],
        requiredConfirmations: 12,
        finalityConfirmations: 64,
        source: "chain",
        complete: true,
      });
    expect((await eth({ ...transfer, finalized: false })).status).toBe("SUCCESSFUL");
    expect((await eth({ ...transfer, confirmations: 70, finalized: false })).finalAt).toBeNull();
    expect(await onWatchList(id)).toBe(true);
    expect((await eth({ ...transfer, confirmations: 20, finalized: true })).finalAt).toBeInstanceOf(Date);
    expect(await onWatchList(id)).toBe(false);
  });

  it("takes a transaction the test helper paid as final at once (no chain receipt to watch)", async () => {
    const { id } = await pending("7");
    const res = await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret());
    expect(res.body.data.status).toBe("SUCCESSFUL");
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).finalAt).toBeInstanceOf(Date);
    expect(await onWatchList(id)).toBe(false);
  });
});

describe("reversals", () => {
  it("tells a reversal once: payment.reversed with the change, REVERSED receipt, reversed_at, status kept", async () => {
    const { id, due } = await pending("7");
    const paid = output(due, 6);
    await watched(id, [paid]);
    // A reorganisation (or a double spend) took the payment away.
    const reversed = await watched(id, []);
    expect(reversed.status).toBe("SUCCESSFUL");
    expect(reversed.reversedAt).toBeInstanceOf(Date);
    expect(await eventTypes(id)).toEqual(["payment.initiated", "payment.pending", "payment.received", "payment.reversed"]);
    // Nothing on the chain is left to watch: final.
    expect(reversed.finalAt).toBeInstanceOf(Date);

    const rest = await get(id);
    expect(rest).toMatchObject({ status: "SUCCESSFUL", amount_paid: null, reversed_at: reversed.reversedAt?.toISOString() });
    expect(rest.meta.payment.state).toBe("reversed");
    expect(rest.receipts).toEqual([expect.objectContaining({ key: paid.key, state: "REVERSED", amount: due.toFixed(), replaceable: false })]);

    const graph = new GraphQLClient(`${t.url}/graphql`, { headers: secret() });
    const { transaction } = await graph.request<{ transaction: any }>(
      `query($id: ID!) { transaction(id: $id) { status paymentState reversedAt receipts { state replaceable } } }`,
      { id },
    );
    expect(transaction).toEqual({
      status: "SUCCESSFUL",
      paymentState: "REVERSED",
      reversedAt: rest.reversed_at,
      receipts: [{ state: "REVERSED", replaceable: false }],
    });

    // The same payload shape as spec 6's events, with the receipt's new state.
    await t.dispatcher().drain();
    const events = verifiedPayloads(receiver, keys.webhookSecret, rest.reference);
    const told = events.find((e) => e.event === "payment.reversed");
    expect(Object.keys(told?.data.transaction ?? {})).toEqual(
      Object.keys(events.find((e) => e.event === "payment.received")?.data.transaction ?? {}),
    );
    expect(told?.data.transaction).toMatchObject({ status: "SUCCESSFUL", amount_paid: null, reversed_at: rest.reversed_at });
    // The body says it was reversed as REST does (issue 42); the payment.received before it said paid.
    expect(told?.data.transaction.state).toBe("reversed");
    expect(events.find((e) => e.event === "payment.received")?.data.transaction.state).toBe("paid");
    expect(told?.data.transaction.receipts).toEqual(rest.receipts);

    // Told once: the next reads change nothing and write no second event.
    await watched(id, []);
    expect((await eventTypes(id)).filter((type) => type === "payment.reversed")).toHaveLength(1);
  });

  it("is no reversal when a counted payment only fell back into the mempool", async () => {
    const { id, due } = await pending("7");
    const paid = output(due, 6);
    await watched(id, [paid]);
    const back = await watched(id, [{ ...paid, confirmations: 0, blockHeight: null }]);
    expect([back.status, back.reversedAt, back.finalAt]).toEqual(["SUCCESSFUL", null, null]);
    expect((await get(id)).receipts).toEqual([expect.objectContaining({ state: "SEEN", confirmations: 0 })]);
    expect(await eventTypes(id)).not.toContain("payment.reversed");
  });

  it("marks a vanished counted receipt REVERSED without reversing a payment the rest still covers", async () => {
    const { id, due } = await pending("7");
    const [paid, extra] = [output(due, 6), output(new Decimal("0.5"), 6)];
    await watched(id, [paid, extra]);
    const after = await watched(id, [paid]);
    expect(after.reversedAt).toBeNull();
    expect((await get(id)).receipts.map((r: { state: string }) => r.state)).toEqual(["CONFIRMED", "REVERSED"]);
    expect(await eventTypes(id)).not.toContain("payment.reversed");
  });

  it("takes an ETH balance part that vanished for a rekeyed or swept balance, not a reversal (DROPPED)", async () => {
    const { id, due } = await pending("6");
    const balance: ObservedReceipt = { key: "balance:confirmed", txHash: null, amount: due, confirmations: 12, blockHeight: null };
    await t.gateway.payments.applyReceipts(id, {
      receipts: [balance],
      requiredConfirmations: 12,
      finalityConfirmations: 64,
      source: "chain",
      complete: true,
    });
    // After the upgrade the same payment is a transfer keyed by its hash: the old balance receipt is dropped once.
    const transfer = output(due, 13);
    const after = await t.gateway.payments.applyReceipts(id, {
      receipts: [{ ...transfer, key: transfer.txHash as string }],
      requiredConfirmations: 12,
      finalityConfirmations: 64,
      source: "chain",
      complete: true,
    });
    expect([after.status, after.reversedAt]).toEqual(["SUCCESSFUL", null]);
    expect((await get(id)).receipts.map((r: { key: string; state: string }) => [r.key, r.state])).toEqual([
      ["balance:confirmed", "DROPPED"],
      [transfer.txHash, "CONFIRMED"],
    ]);
  });

  it("returns a transaction to what it is owed when a receipt vanishes before success", async () => {
    const { id, due } = await pending("7");
    const part = output(due.div(2).toDecimalPlaces(8), 6);
    const seen = output(due.minus(part.amount), 2);
    await watched(id, [part, seen]);
    const before = await get(id);
    expect(before.meta.payment).toMatchObject({ state: "confirming", amount_confirmed: part.amount.toFixed() });
    const after = await watched(id, [seen]);
    expect([after.status, after.reversedAt]).toEqual(["PENDING", null]);
    const rest = await get(id);
    expect(rest.amount_paid).toBeNull();
    expect(rest.meta.payment).toMatchObject({ state: "underpaid", amount_confirmed: "0", amount_unconfirmed: seen.amount.toFixed() });
    expect(rest.receipts.map((r: { state: string }) => r.state)).toEqual(["DROPPED", "SEEN"]);
    expect(await eventTypes(id)).toEqual(["payment.initiated", "payment.pending"]);
  });
});

describe("zero-confirmation acceptance and BIP 125", () => {
  it("never counts a replaceable payment at 0 confirmations; counts it at its first", async () => {
    const { id, due } = await pending("7");
    const rbf = output(due, 0, { replaceable: true });
    const waiting = await watched(id, [rbf], 0);
    expect(waiting.status).toBe("PENDING");
    const rest = await get(id);
    expect(rest.receipts).toEqual([expect.objectContaining({ state: "SEEN", confirmations: 0, replaceable: true })]);
    expect(rest.meta.payment.state).toBe("confirming");
    const mined = await watched(id, [deeper(rbf, 1)], 0);
    expect(mined.status).toBe("SUCCESSFUL");
    expect((await get(id)).receipts).toEqual([expect.objectContaining({ state: "CONFIRMED", replaceable: false })]);
  });

  it("counts a final-sequence payment at 0 confirmations where they are accepted", async () => {
    const { id, due } = await pending("7");
    const done = await watched(id, [output(due, 0, { replaceable: false })], 0);
    expect(done.status).toBe("SUCCESSFUL");
    expect((await get(id)).receipts).toEqual([expect.objectContaining({ state: "CONFIRMED", confirmations: 0, replaceable: false })]);
  });

  it("shows a 0-confirmation double spend of a counted payment as payment.reversed", async () => {
    const { id, due } = await pending("7");
    const paid = output(due, 0);
    expect((await watched(id, [paid], 0)).status).toBe("SUCCESSFUL");
    const reversed = await watched(id, [], 0);
    expect(reversed.reversedAt).toBeInstanceOf(Date);
    expect(await eventTypes(id)).toContain("payment.reversed");
  });
});

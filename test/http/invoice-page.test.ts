// The hosted invoice page (issue 44; docs/invoices.md, The hosted page): the invoice in the customer's
// language, Pay making a transaction of the invoice for what is left through initialize (spec 4.1) and
// sending the customer to its checkout; the invoice's paid amount and state following its transactions'
// lifecycle; a paid invoice neither paid again nor voided; two customers paying the rest at once.
import { describe, expect, it } from "vitest";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import { allVerifiedPayloads, type WebhookReceiver } from "../support/webhook-receiver.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  ({ t, receiver } = started);
  keys = await t.merchant({ name: "Invoices Ltd", testWebhookUrl: receiver.url });
});

const secret = () => ({ authorization: `Bearer ${keys.testSecretKey}` });

async function api(method: "GET" | "POST", path: string, body?: unknown) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...secret() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function openInvoice(overrides: Record<string, unknown> = {}) {
  const made = await api("POST", "/v1/invoices", {
    customer: { email: "ada@example.com", name: "Ada Obi" },
    currency: "USD",
    items: [{ description: "Consulting <b>hours</b>", quantity: 2, unit_price: "150.00" }],
    taxes: [{ name: "VAT", rate: "7.5" }],
    finalize: true,
    ...overrides,
  });
  expect(made.status).toBe(201);
  const token = String(made.body.data.hosted_url).split("/invoice/")[1] ?? "";
  return { id: made.body.data.id as string, token };
}

const getPage = async (token: string, query = "", headers: Record<string, string> = {}) => {
  const res = await fetch(`${t.url}/invoice/${token}${query}`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

async function pay(token: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/invoice/${token}/pay`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
}

/** The customer pays the transaction the page made, in full unless said (the test helper records it as the watcher would). */
async function payTransaction(transactionId: string, amount?: string) {
  const initiated = await api("POST", `/v1/transaction/${transactionId}/pay`, { currency_id: "7" });
  expect(initiated.status).toBe(200);
  const paid = await api("POST", `/v1/test_helpers/transaction/${transactionId}/payment`, amount ? { amount } : {});
  expect(paid.status).toBe(200);
  return paid.body.data;
}

/** invoice.paid events of one invoice in the Events API, as [subject, transaction, body]. */
async function paidEventsOf(id: string) {
  const listed = await api("GET", "/v1/events?type=invoice.paid&limit=100");
  expect(listed.status).toBe(200);
  return (listed.body.data as { subject: string | null; transaction: string | null; data: unknown }[])
    .filter((e) => e.subject === id)
    .map((e) => [e.subject, e.transaction, e.data]);
}

const transactionOf = (location: string | null) => {
  const match = /\/checkout\/([0-9a-f-]{36})_secret_/.exec(location ?? "");
  expect(match).not.toBeNull();
  return match?.[1] ?? "";
};

describe("the page", () => {
  it("shows the items, totals, what was paid and what is left, escaped, with no-store and no framing", async () => {
    const { token } = await openInvoice();
    const page = await getPage(token);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.text).toContain("Invoice INV-0001");
    expect(page.text).toContain("Consulting &lt;b&gt;hours&lt;/b&gt;");
    expect(page.text).toContain('<td class="num" id="amount-due">322.50 USD</td>');
    expect(page.text).toContain('<td class="num" id="amount-paid">0.00 USD</td>');
    expect(page.text).toContain("Test mode");
  });

  it("speaks the checkout's six languages, by ?lang= or the browser's", async () => {
    const { token } = await openInvoice();
    expect((await getPage(token, "?lang=fr")).text).toContain("Facture INV-");
    expect((await getPage(token, "", { "accept-language": "de-DE,de;q=0.9" })).text).toContain("Rechnung INV-");
    const arabic = await getPage(token, "?lang=ar");
    expect(arabic.text).toContain('lang="ar" dir="rtl"');
    expect(arabic.text).toContain("فاتورة");
    for (const [lang, word] of [
      ["es", "Factura"],
      ["pt", "Fatura"],
      ["en", "Invoice"],
    ])
      expect((await getPage(token, `?lang=${lang}`)).text).toContain(word);
  });

  it("is a 404 for an unknown token and for a draft's", async () => {
    expect((await getPage("A".repeat(32))).status).toBe(404);
    expect((await getPage("nope")).text).toContain("This invoice link is not valid");
    const draft = await api("POST", "/v1/invoices", {
      customer: { email: "a@example.com" },
      currency: "USD",
      items: [{ description: "x", quantity: 1, unit_price: "1.00" }],
    });
    const row = await t.db.invoice.findUniqueOrThrow({ where: { id: draft.body.data.id } });
    expect((await getPage(row.token)).status).toBe(404);
    expect((await pay(row.token)).status).toBe(404);
  });
});

describe("paying", () => {
  it("makes a transaction of the invoice for what is left and redirects to its checkout; paid, it is neither paid again nor voided", async () => {
    const { id, token } = await openInvoice();
    const before = await t.db.transaction.count();
    const res = await pay(token, {}, { origin: new URL(t.url).origin });
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/\/checkout\/[0-9a-f-]{36}_secret_[0-9A-Za-z]{32}$/);
    const transactionId = transactionOf(res.location);
    const row = await t.db.transaction.findUniqueOrThrow({ where: { id: transactionId } });
    expect(await t.db.transaction.count()).toBe(before + 1);
    expect([row.initializedAmount.toFixed(2), row.customerEmail, row.status, row.locale]).toEqual(["322.50", "ada@example.com", "INITIATED", "en"]);
    expect(row.requestMeta).toEqual({ invoice_id: id });

    const open = await api("GET", `/v1/invoices/${id}`);
    expect(open.body.data).toMatchObject({
      state: "open",
      amount_paid: "0.00",
      transactions: [{ id: transactionId, status: "INITIATED", amount: "322.50" }],
    });

    await payTransaction(transactionId);
    const paid = await api("GET", `/v1/invoices/${id}`);
    expect(paid.body.data).toMatchObject({ state: "paid", amount_paid: "322.50", amount_due: "0.00", amount_overpaid: "0.00" });
    expect((await getPage(token)).text).toContain('<td class="num" id="amount-paid">322.50 USD</td>');

    const count = await t.db.transaction.count();
    const again = await pay(token);
    expect(again.status).toBe(409);
    expect(again.text).toContain("This invoice is paid; nothing is left to pay");
    expect(await t.db.transaction.count()).toBe(count);

    const voided = await api("POST", `/v1/invoices/${id}/void`);
    expect(voided.status).toBe(409);
    expect(voided.body.message).toBe("The invoice is paid: an invoice that received a payment cannot be voided; refund the payment instead");
    expect((await api("GET", `/v1/invoices/${id}`)).body.data.state).toBe("paid");
  });

  it("takes a part when partial payments are allowed, and refuses more than is left (400 naming amount)", async () => {
    const { id, token } = await openInvoice({ allow_partial_payments: true });
    const part = await pay(token, { amount: "100.00" });
    expect(part.status).toBe(303);
    await payTransaction(transactionOf(part.location));
    expect((await api("GET", `/v1/invoices/${id}`)).body.data).toMatchObject({
      state: "partially_paid",
      amount_paid: "100.00",
      amount_due: "222.50",
    });
    // A part paid: not paid yet, no invoice.paid.
    expect(await paidEventsOf(id)).toEqual([]);

    const count = await t.db.transaction.count();
    const tooMuch = await pay(token, { amount: "300.00" });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.text).toContain("amount must be more than 0 and at most 222.50, what is left");
    expect(await t.db.transaction.count()).toBe(count);

    const rest = await pay(token);
    await payTransaction(transactionOf(rest.location));
    const paid = (await api("GET", `/v1/invoices/${id}`)).body.data;
    expect(paid).toMatchObject({ state: "paid", amount_paid: "322.50" });
    // The last part's success wrote invoice.paid in its database transaction: the invoice as REST shows it now.
    expect(await paidEventsOf(id)).toEqual([[id, null, { event: "invoice.paid", data: { invoice: paid } }]]);
    // Delivered and signed as any event: the receiver verifies it with the merchant's secret.
    await t.dispatcher().drain();
    const delivered = allVerifiedPayloads(receiver, keys.webhookSecret).filter((p) => p.data.invoice?.id === id);
    expect(delivered.map((p) => p.event).sort()).toEqual(["invoice.finalized", "invoice.paid", "invoice.partially_paid"]);
    expect(delivered.find((p) => p.event === "invoice.paid")).toEqual({ event: "invoice.paid", data: { invoice: paid } });
  });

  it("does not count an underpaid transaction the lifecycle leaves PENDING", async () => {
    const { id, token } = await openInvoice();
    const transactionId = transactionOf((await pay(token)).location);
    const initiated = await api("POST", `/v1/transaction/${transactionId}/pay`, { currency_id: "7" });
    const due = Number(initiated.body.data.payment_amount ?? initiated.body.data.amount_due ?? 0);
    expect(due).toBeGreaterThan(0);
    const half = await api("POST", `/v1/test_helpers/transaction/${transactionId}/payment`, { amount: (due / 2).toFixed(8) });
    expect(half.status).toBe(200);
    expect((await api("GET", `/v1/invoices/${id}`)).body.data).toMatchObject({
      state: "open",
      amount_paid: "0.00",
      transactions: [{ id: transactionId, status: "PENDING", amount_credited: "0.00" }],
    });
    // A payment under way: voiding would orphan it.
    const voided = await api("POST", `/v1/invoices/${id}/void`);
    expect(voided.status).toBe(409);
    expect(voided.body.message).toBe("The invoice is being paid: an invoice that received a payment cannot be voided; refund the payment instead");
    expect(await paidEventsOf(id)).toEqual([]);
  });

  it("two customers paying the rest at once: one pays the rest, the other's payment is an overpayment", async () => {
    const { id, token } = await openInvoice();
    const [a, b] = await Promise.all([pay(token), pay(token)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    const first = transactionOf(a.location);
    const second = transactionOf(b.location);
    expect(first).not.toBe(second);
    await payTransaction(first);
    await payTransaction(second);
    const invoice = (await api("GET", `/v1/invoices/${id}`)).body.data;
    expect(invoice).toMatchObject({ state: "paid", amount_paid: "645.00", amount_due: "0.00", amount_overpaid: "322.50" });
    expect(invoice.transactions.map((x: { status: string }) => x.status)).toEqual(["SUCCESSFUL", "SUCCESSFUL"]);
    // invoice.paid once, when the first payment paid it in full; the overpayment wrote none.
    const events = await paidEventsOf(id);
    expect(events).toHaveLength(1);
    expect(events[0]?.[2]).toMatchObject({
      event: "invoice.paid",
      data: { invoice: { id, state: "paid", amount_paid: "322.50", amount_overpaid: "0.00" } },
    });
  });

  it("refuses a Pay sent from another site (403), and a void invoice's Pay (409), making no transaction", async () => {
    const { id, token } = await openInvoice();
    const count = await t.db.transaction.count();
    const foreign = await pay(token, {}, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.text).toContain("This form can only be sent from this invoice page.");
    expect((await api("POST", `/v1/invoices/${id}/void`)).status).toBe(200);
    const voided = await pay(token);
    expect(voided.status).toBe(409);
    expect(voided.text).toContain("This invoice is void: it cannot be paid");
    expect(await t.db.transaction.count()).toBe(count);
  });
});

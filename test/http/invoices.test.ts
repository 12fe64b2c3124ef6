// Invoices over REST (issue 44; docs/invoices.md): create as a draft or finalized, list, retrieve,
// finalize, void; every bad input of the issue a 400 naming the field and every refused change a 409,
// nothing changed.
import { describe, expect, it } from "vitest";
import { MAX_INVOICE_ITEMS } from "../../src/core/invoices/rules.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import { allVerifiedPayloads, type WebhookReceiver } from "../support/webhook-receiver.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let other: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  ({ t, receiver } = started);
  keys = await t.merchant({ name: "Invoices Ltd", testWebhookUrl: receiver.url });
  other = await t.merchant({ name: "Someone Else" });
});

const secret = (k = keys) => ({ authorization: `Bearer ${k.testSecretKey}` });

async function call(method: "GET" | "POST", path: string, body?: unknown, headers: Record<string, string> = secret()) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const invoiceBody = (overrides: Record<string, unknown> = {}) => ({
  customer: { email: "ada@example.com", name: "Ada Obi" },
  currency: "USD",
  items: [{ description: "Consulting", quantity: 2, unit_price: "150.00" }],
  taxes: [{ name: "VAT", rate: "7.5" }],
  memo: "Thank you for your business",
  due_date: "2026-12-31",
  ...overrides,
});

async function snapshot() {
  const [invoices, numbers, payments, events] = await Promise.all([
    t.db.invoice.findMany({ orderBy: { id: "asc" } }),
    t.db.invoiceNumber.findMany({ orderBy: [{ merchantId: "asc" }, { isLive: "asc" }] }),
    t.db.invoicePayment.count(),
    // A refused change writes no event either.
    t.db.webhookEvent.count(),
  ]);
  return JSON.stringify({ invoices, numbers, payments, events });
}

async function expectRefused(request: () => Promise<{ status: number; body: any }>, status: number, message: string | RegExp, field?: string) {
  const before = await snapshot();
  const res = await request();
  expect(res.status).toBe(status);
  expect(res.body.status).toBe("error");
  if (typeof message === "string") expect(res.body.message).toBe(message);
  else expect(res.body.message).toMatch(message);
  if (field) expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  expect(await snapshot()).toBe(before);
  return res.body;
}

describe("making and reading invoices", () => {
  it("creates a draft with exact totals, no number and no page yet; finalizing numbers it and opens its page", async () => {
    const made = await call("POST", "/v1/invoices", invoiceBody());
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({
      object: "invoice",
      state: "draft",
      number: null,
      hosted_url: null,
      is_live: false,
      currency: "USD",
      subtotal: "300.00",
      tax_total: "22.50",
      total: "322.50",
      amount_paid: "0.00",
      amount_due: "322.50",
      customer: { email: "ada@example.com", name: "Ada Obi" },
      items: [{ description: "Consulting", quantity: 2, unit_price: "150.00", amount: "300.00" }],
      taxes: [{ name: "VAT", rate: "7.5", amount: "22.50" }],
      due_date: "2026-12-31",
      allow_partial_payments: false,
      transactions: [],
    });
    const id: string = made.body.data.id;
    expect(id).toMatch(/^inv_[0-9a-f-]{36}$/);

    const finalized = await call("POST", `/v1/invoices/${id}/finalize`);
    expect(finalized.status).toBe(200);
    expect(finalized.body.data).toMatchObject({ state: "open", number: "INV-0001" });
    expect(finalized.body.data.hosted_url).toMatch(new RegExp(`^${t.url.replace(/\./g, "\\.")}/invoice/[0-9A-Za-z]{32}$|/invoice/[0-9A-Za-z]{32}$`));

    const read = await call("GET", `/v1/invoices/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(finalized.body.data);
  });

  it("finalizes at once when asked, and lists newest first with a cursor", async () => {
    const at = await call(
      "POST",
      "/v1/invoices",
      invoiceBody({ finalize: true, currency: "ngn", items: [{ description: "Rice", quantity: 1, unit_price: "5000" }] }),
    );
    expect(at.status).toBe(201);
    expect(at.body.data).toMatchObject({ state: "open", number: "INV-0002", currency: "NGN", total: "5375.00" });
    const first = await call("GET", "/v1/invoices?limit=1");
    expect(first.status).toBe(200);
    expect(first.body.data.map((i: { id: string }) => i.id)).toEqual([at.body.data.id]);
    expect(first.body.has_more).toBe(true);
    const second = await call("GET", `/v1/invoices?limit=1&starting_after=${at.body.data.id}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0].number).toBe("INV-0001");
  });

  it("voids a draft and an unpaid open invoice", async () => {
    const draft = await call("POST", "/v1/invoices", invoiceBody());
    const voided = await call("POST", `/v1/invoices/${draft.body.data.id}/void`);
    expect(voided.status).toBe(200);
    expect(voided.body.data).toMatchObject({ state: "void", number: null });
    expect(voided.body.data.voided_at).not.toBeNull();
  });
});

/** The Events API's events of one invoice and type, as [type, subject, transaction, body]. */
async function eventsOf(id: string, type: string) {
  const listed = await call("GET", `/v1/events?type=${type}&limit=100`);
  expect(listed.status).toBe(200);
  return (listed.body.data as { type: string; subject: string | null; transaction: string | null; data: unknown }[])
    .filter((e) => e.subject === id)
    .map((e) => [e.type, e.subject, e.transaction, e.data]);
}

describe("invoice events (extensions): finalized and voided, about the invoice", () => {
  it("finalizing writes one invoice.finalized and voiding one invoice.voided, each with the invoice as REST shows it then, signed to the receiver", async () => {
    const draft = await call("POST", "/v1/invoices", invoiceBody());
    const id: string = draft.body.data.id;
    // A draft is not sent: no event yet.
    expect(await eventsOf(id, "invoice.finalized")).toEqual([]);
    const finalized = await call("POST", `/v1/invoices/${id}/finalize`);
    expect(finalized.status).toBe(200);
    expect(finalized.body.data.state).toBe("open");
    expect(await eventsOf(id, "invoice.finalized")).toEqual([
      ["invoice.finalized", id, null, { event: "invoice.finalized", data: { invoice: finalized.body.data } }],
    ]);
    const voided = await call("POST", `/v1/invoices/${id}/void`);
    expect(voided.status).toBe(200);
    expect(voided.body.data.state).toBe("void");
    expect(await eventsOf(id, "invoice.voided")).toEqual([
      ["invoice.voided", id, null, { event: "invoice.voided", data: { invoice: voided.body.data } }],
    ]);
    // Still one finalized event: the void wrote only its own.
    expect(await eventsOf(id, "invoice.finalized")).toHaveLength(1);

    await t.dispatcher().drain();
    const delivered = allVerifiedPayloads(receiver, keys.webhookSecret).filter((p) => p.data.invoice?.id === id);
    // Each once (subject events are not held behind each other, so in no promised order).
    expect(delivered.sort((a, b) => a.event.localeCompare(b.event))).toEqual([
      { event: "invoice.finalized", data: { invoice: finalized.body.data } },
      { event: "invoice.voided", data: { invoice: voided.body.data } },
    ]);
  });

  it("an invoice created finalized writes invoice.finalized at once; a voided draft writes only invoice.voided", async () => {
    const open = await call("POST", "/v1/invoices", invoiceBody({ finalize: true }));
    expect(open.status).toBe(201);
    expect(await eventsOf(open.body.data.id, "invoice.finalized")).toEqual([
      ["invoice.finalized", open.body.data.id, null, { event: "invoice.finalized", data: { invoice: open.body.data } }],
    ]);
    const draft = await call("POST", "/v1/invoices", invoiceBody());
    const voided = await call("POST", `/v1/invoices/${draft.body.data.id}/void`);
    expect(voided.status).toBe(200);
    expect(await eventsOf(draft.body.data.id, "invoice.finalized")).toEqual([]);
    expect(await eventsOf(draft.body.data.id, "invoice.voided")).toEqual([
      ["invoice.voided", draft.body.data.id, null, { event: "invoice.voided", data: { invoice: voided.body.data } }],
    ]);
  });
});

describe("bad input: 400 naming the field, nothing written", () => {
  const create = (body: unknown) => () => call("POST", "/v1/invoices", body);
  it.each([
    ["no items", invoiceBody({ items: [] }), "items", /items must hold at least one line item/],
    [
      "a negative quantity",
      invoiceBody({ items: [{ description: "x", quantity: -1, unit_price: "1.00" }] }),
      "items.0.quantity",
      /items\.0\.quantity must be a positive integer/,
    ],
    [
      "a fractional quantity",
      invoiceBody({ items: [{ description: "x", quantity: 1.5, unit_price: "1.00" }] }),
      "items.0.quantity",
      /items\.0\.quantity must be a positive integer/,
    ],
    [
      "a price with more decimals than USD",
      invoiceBody({ items: [{ description: "x", quantity: 1, unit_price: "1.001" }] }),
      "items.0.unit_price",
      /items\.0\.unit_price has more than 2 decimal places, the precision of USD/,
    ],
    [
      "a price that is no decimal",
      invoiceBody({ items: [{ description: "x", quantity: 1, unit_price: "1e3" }] }),
      "items.0.unit_price",
      /items\.0\.unit_price must be a decimal string/,
    ],
    [
      "a zero price",
      invoiceBody({ items: [{ description: "x", quantity: 1, unit_price: "0" }] }),
      "items.0.unit_price",
      /items\.0\.unit_price must be greater than 0/,
    ],
    ["a bad e-mail", invoiceBody({ customer: { email: "not-an-email" } }), "customer.email", /customer\.email must be a valid e-mail address/],
    ["an unknown currency", invoiceBody({ currency: "EUR" }), "currency", /currency must be USD or NGN/],
    ["a tax rate above 100", invoiceBody({ taxes: [{ name: "VAT", rate: "101" }] }), "taxes.0.rate", /taxes\.0\.rate must be at most 100/],
    ["a due date that is no day", invoiceBody({ due_date: "2026-02-30" }), "due_date", /due_date must be a day as YYYY-MM-DD/],
    [
      `more than ${MAX_INVOICE_ITEMS} items`,
      invoiceBody({ items: Array.from({ length: MAX_INVOICE_ITEMS + 1 }, () => ({ description: "x", quantity: 1, unit_price: "1.00" })) }),
      "items",
      new RegExp(`items must hold at most ${MAX_INVOICE_ITEMS} line items`),
    ],
  ])("refuses %s", async (_case, body, field, message) => {
    await expectRefused(create(body), 400, message, field);
  });

  it("refuses a body that is not JSON", async () => {
    const before = await snapshot();
    const res = await fetch(`${t.url}/v1/invoices`, { method: "POST", headers: { ...secret(), "content-type": "application/json" }, body: "{" });
    expect(res.status).toBe(400);
    expect(await snapshot()).toBe(before);
  });
});

describe("refused changes and reads", () => {
  it("finalizing an open invoice is a 409 and takes no number", async () => {
    const open = await call("POST", "/v1/invoices", invoiceBody({ finalize: true }));
    await expectRefused(
      () => call("POST", `/v1/invoices/${open.body.data.id}/finalize`),
      409,
      "The invoice is open, not a draft: only a draft can be finalized",
    );
  });

  it("voiding a void invoice is a 409", async () => {
    const draft = await call("POST", "/v1/invoices", invoiceBody());
    await call("POST", `/v1/invoices/${draft.body.data.id}/void`);
    await expectRefused(() => call("POST", `/v1/invoices/${draft.body.data.id}/void`), 409, "The invoice is void already");
    await expectRefused(
      () => call("POST", `/v1/invoices/${draft.body.data.id}/finalize`),
      409,
      "The invoice is void, not a draft: only a draft can be finalized",
    );
  });

  it("another merchant's, the other mode's and an unknown invoice are the same 404", async () => {
    const mine = await call("POST", "/v1/invoices", invoiceBody());
    const id: string = mine.body.data.id;
    await expectRefused(() => call("GET", `/v1/invoices/${id}`, undefined, secret(other)), 404, `No invoice with id '${id}'`);
    await expectRefused(() => call("POST", `/v1/invoices/${id}/void`, undefined, secret(other)), 404, `No invoice with id '${id}'`);
    await expectRefused(
      () => call("GET", `/v1/invoices/${id}`, undefined, { authorization: `Bearer ${keys.liveSecretKey}` }),
      404,
      `No invoice with id '${id}'`,
    );
    await expectRefused(() => call("GET", "/v1/invoices/inv_nope"), 404, "No invoice with id 'inv_nope'");
  });

  it("a public key or no key cannot reach invoices", async () => {
    const publicKey = await expectRefused(
      () => call("POST", "/v1/invoices", invoiceBody(), { authorization: `Bearer ${keys.testPublicKey}` }),
      401,
      /./,
    );
    expect(publicKey.message).toBeTruthy();
    await expectRefused(() => call("GET", "/v1/invoices", undefined, {}), 401, /./);
  });

  it("refuses an unknown list parameter and an unknown cursor", async () => {
    await expectRefused(() => call("GET", "/v1/invoices?state=open"), 400, "Invalid query parameter: state is not a parameter of this list");
    await expectRefused(
      () => call("GET", "/v1/invoices?starting_after=inv_00000000-0000-0000-0000-000000000000"),
      400,
      /starting_after names no object of this merchant and mode/,
    );
  });
});

// Invoices over GraphQL (issue 44): the same core as REST, the same rules and messages, secret key only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Graph Invoices" });
});
afterAll(async () => t?.close());

const FIELDS = "id number state total amountDue currency hostedUrl locale items { quantity unitPrice amount } taxes { rate amount }";

async function graph(query: string, variables: Record<string, unknown>, key = keys.testSecretKey) {
  const res = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as {
    data?: any;
    errors?: { message: string; extensions: { code: string; status: number; errors: { field: string; message: string }[] } }[];
  };
}

const CREATE = `mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { ${FIELDS} } }`;
const input = (overrides: Record<string, unknown> = {}) => ({
  customerEmail: "ada@example.com",
  currency: "USD",
  items: [{ description: "Consulting", quantity: 2, unitPrice: "150.00" }],
  taxes: [{ name: "VAT", rate: "7.5" }],
  ...overrides,
});

describe("invoices over GraphQL", () => {
  it("creates a draft, finalizes it, reads and lists it, and voids another", async () => {
    const made = await graph(CREATE, { input: input() });
    expect(made.errors).toBeUndefined();
    expect(made.data.createInvoice).toMatchObject({
      number: null,
      state: "DRAFT",
      total: "322.50",
      hostedUrl: null,
      taxes: [{ rate: "7.5", amount: "22.50" }],
    });
    const id = made.data.createInvoice.id;
    const finalized = await graph(`mutation($id: ID!) { finalizeInvoice(id: $id) { ${FIELDS} } }`, { id });
    expect(finalized.data.finalizeInvoice).toMatchObject({ number: "INV-0001", state: "OPEN", amountDue: "322.50" });
    const read = await graph(`query($id: ID!) { invoice(id: $id) { ${FIELDS} } }`, { id });
    expect(read.data.invoice).toEqual(finalized.data.finalizeInvoice);
    const listed = await graph(`query { invoices(first: 5) { id } }`, {});
    expect(listed.data.invoices.map((i: { id: string }) => i.id)).toContain(id);
    const draft = await graph(CREATE, { input: input() });
    const voided = await graph(`mutation($id: ID!) { voidInvoice(id: $id) { state } }`, { id: draft.data.createInvoice.id });
    expect(voided.data.voidInvoice.state).toBe("VOID");
  });

  it("answers bad input with REST's 400 naming the field, and a refused change with its 409; nothing written", async () => {
    const before = await t.db.invoice.count();
    const bad = await graph(CREATE, { input: input({ items: [{ description: "x", quantity: 0, unitPrice: "1.001" }] }) });
    expect(bad.errors?.[0]?.extensions.status).toBe(400);
    expect(bad.errors?.[0]?.message).toMatch(/items\.0\.quantity must be a positive integer/);
    expect(bad.errors?.[0]?.extensions.errors.map((e) => e.field)).toContain("items.0.quantity");
    expect(await t.db.invoice.count()).toBe(before);
    const open = await graph(CREATE, { input: input({ finalize: true }) });
    const again = await graph(`mutation($id: ID!) { finalizeInvoice(id: $id) { id } }`, { id: open.data.createInvoice.id });
    expect(again.errors?.[0]?.extensions.status).toBe(409);
    expect(again.errors?.[0]?.message).toBe("The invoice is open, not a draft: only a draft can be finalized");
  });

  it("sets the invoice's language, and refuses one it does not have with REST's 400 naming locale", async () => {
    const made = await graph(CREATE, { input: input({ locale: "pt" }) });
    expect(made.errors).toBeUndefined();
    expect(made.data.createInvoice.locale).toBe("pt");
    expect((await graph(CREATE, { input: input() })).data.createInvoice.locale).toBeNull();
    const before = await t.db.invoice.count();
    const bad = await graph(CREATE, { input: input({ locale: "PT-br" }) });
    expect(bad.errors?.[0]?.extensions.status).toBe(400);
    expect(bad.errors?.[0]?.message).toBe("Invalid invoice: locale must be one of en, fr, es, pt, de, ar");
    expect(bad.errors?.[0]?.extensions.errors).toEqual([{ field: "locale", message: "locale must be one of en, fr, es, pt, de, ar" }]);
    expect(await t.db.invoice.count()).toBe(before);
    const id = made.data.createInvoice.id;
    const UPDATE = `mutation($id: ID!, $locale: String) { updateInvoiceLocale(id: $id, locale: $locale) { id locale } }`;
    expect((await graph(UPDATE, { id, locale: "ar" })).data.updateInvoiceLocale).toEqual({ id, locale: "ar" });
    const refused = await graph(UPDATE, { id, locale: "xx" });
    expect(refused.errors?.[0]?.extensions.status).toBe(400);
    expect(refused.errors?.[0]?.extensions.errors).toEqual([{ field: "locale", message: "locale must be one of en, fr, es, pt, de, ar" }]);
    expect((await graph(UPDATE, { id, locale: null })).data.updateInvoiceLocale.locale).toBeNull();
  });

  it("shows another mode's invoice as null", async () => {
    const made = await graph(CREATE, { input: input() });
    const other = await graph(`query($id: ID!) { invoice(id: $id) { id } }`, { id: made.data.createInvoice.id }, keys.liveSecretKey);
    expect(other.errors).toBeUndefined();
    expect(other.data.invoice).toBeNull();
  });
});

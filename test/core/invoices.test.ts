// Invoices on a real database through the gateway's façade (issue 44): numbers per merchant and mode
// without gaps (given at finalize, not at draft, atomically under concurrent finalizations), modes
// apart, and a void refused once a payment counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let merchantId: number;
let otherId: number;

beforeAll(async () => {
  t = await startTestGateway();
  merchantId = (await t.merchant({ name: "Invoicing Ltd" })).id;
  otherId = (await t.merchant({ name: "Other Ltd" })).id;
});
afterAll(async () => t?.close());

const body = (overrides: Record<string, unknown> = {}) => ({
  customer: { email: "ada@example.com", name: "Ada Obi" },
  currency: "USD",
  items: [{ description: "Consulting", quantity: 2, unit_price: "150.00" }],
  ...overrides,
});

describe("numbers", () => {
  it("gives none to a draft and the next to each finalized invoice, without gaps under concurrent finalizations", async () => {
    const access = t.gateway.access.operator(merchantId);
    const drafts = await Promise.all(Array.from({ length: 6 }, () => t.gateway.invoices.createInvoice(access, body())));
    expect(drafts.every((d) => d.number === null && d.state === "draft" && d.hosted_url === null)).toBe(true);
    const finalized = await Promise.all(drafts.map((d) => t.gateway.invoices.finalizeInvoice(access, d.id)));
    expect(finalized.map((f) => f.number).sort()).toEqual(["INV-0001", "INV-0002", "INV-0003", "INV-0004", "INV-0005", "INV-0006"]);
    expect(finalized.every((f) => f.state === "open" && f.hosted_url?.includes("/invoice/"))).toBe(true);
    // Finalizing twice at once: one wins, the other is refused and takes no number.
    const draft = await t.gateway.invoices.createInvoice(access, body());
    const both = await Promise.allSettled([
      t.gateway.invoices.finalizeInvoice(access, draft.id),
      t.gateway.invoices.finalizeInvoice(access, draft.id),
    ]);
    expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    // And one invoice.finalized, about the invoice: the refused one wrote none.
    const events = await t.db.webhookEvent.findMany({ where: { subjectId: draft.id } });
    expect(events.map((e) => [e.type, e.transactionId, e.isLive])).toEqual([["invoice.finalized", null, false]]);
    const next = await t.gateway.invoices.createInvoice(access, body({ finalize: true }));
    expect(next.number).toBe("INV-0008");
  });

  it("counts each mode and each merchant apart", async () => {
    const live = await t.gateway.invoices.createInvoice(t.gateway.access.operator(merchantId, true), body({ finalize: true }));
    const other = await t.gateway.invoices.createInvoice(t.gateway.access.operator(otherId), body({ finalize: true }));
    expect([live.number, live.is_live, other.number]).toEqual(["INV-0001", true, "INV-0001"]);
    // The test key's merchant cannot read the live invoice, nor another merchant's.
    await expect(t.gateway.invoices.retrieveInvoice(t.gateway.access.operator(merchantId), live.id)).rejects.toThrow(/No invoice with id/);
    await expect(t.gateway.invoices.retrieveInvoice(t.gateway.access.operator(merchantId, true), other.id)).rejects.toThrow(/No invoice with id/);
  });
});

it("keeps the totals exact and the invoice as written", async () => {
  const access = t.gateway.access.operator(merchantId);
  const made = await t.gateway.invoices.createInvoice(
    access,
    body({
      currency: "NGN",
      items: [
        { description: "Rice", quantity: 3, unit_price: "1200.10" },
        { description: "Beans", quantity: 1, unit_price: "0.2" },
      ],
      taxes: [{ name: "VAT", rate: "7.5" }],
      memo: "Thank you",
      due_date: "2026-12-31",
      allow_partial_payments: true,
    }),
  );
  expect(made).toMatchObject({
    currency: "NGN",
    subtotal: "3600.50",
    tax_total: "270.04",
    total: "3870.54",
    amount_paid: "0.00",
    amount_due: "3870.54",
    due_date: "2026-12-31",
    memo: "Thank you",
    allow_partial_payments: true,
  });
  expect(made.items.map((i) => i.amount)).toEqual(["3600.30", "0.20"]);
  expect(await t.gateway.invoices.retrieveInvoice(access, made.id)).toEqual(made);
});

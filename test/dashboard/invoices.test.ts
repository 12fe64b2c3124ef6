// The dashboard's invoices (issue 44) over HTTP with signed-in sessions: an owner and a developer
// create a draft, list it, read it, finalize and void; a viewer reads but is refused every change
// (403 role_forbidden, nothing changed); bad input is a 400 naming the field; the modes and the
// merchants are walls (another mode's or merchant's invoice is 404).
import { describe, expect, it } from "vitest";
import { expectDashboardError, signedInAs } from "../support/dashboard.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
gatewayAndReceiverForFile((started) => {
  t = started.t;
});

const API = "/dashboard/api";

const draft = (overrides: Record<string, unknown> = {}) => ({
  customer: { email: "ada@example.com", name: "Ada Obi" },
  currency: "NGN",
  items: [
    { description: "Design", quantity: 2, unit_price: "15000.50" },
    { description: "Hosting", quantity: 1, unit_price: "4999" },
  ],
  taxes: [{ name: "VAT", rate: "7.5" }],
  due_date: "2030-06-30",
  allow_partial_payments: true,
  ...overrides,
});

const invoicesState = async () => JSON.stringify(await t.db.invoice.findMany({ orderBy: { id: "asc" } }));

describe("invoices in the dashboard", () => {
  it("an owner creates a draft, lists and reads it, finalizes it with the next number and voids it", async () => {
    const keys = await t.merchant({ name: "Dash Invoices" });
    const owner = await signedInAs(t, keys.id, "owner");

    const created = await owner.post(`${API}/invoices?mode=test`, draft());
    expect(created.status).toBe(201);
    const invoice = created.body.data;
    expect(invoice).toMatchObject({
      object: "invoice",
      number: null,
      state: "draft",
      is_live: false,
      currency: "NGN",
      subtotal: "35000.00",
      tax_total: "2625.00",
      total: "37625.00",
      amount_paid: "0.00",
      amount_due: "37625.00",
      hosted_url: null,
    });

    const listed = await owner.get(`${API}/invoices?mode=test`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toMatchObject({ has_more: false, invoices: [{ id: invoice.id, state: "draft" }] });
    expect((await owner.get(`${API}/invoices?mode=live`)).body.data).toEqual({ invoices: [], has_more: false });

    const read = await owner.get(`${API}/invoices/${invoice.id}?mode=test`);
    expect(read.body.data).toMatchObject({ id: invoice.id, items: [{ amount: "30001.00" }, { amount: "4999.00" }], taxes: [{ amount: "2625.00" }] });

    const finalized = await owner.post(`${API}/invoices/${invoice.id}/finalize?mode=test`);
    expect(finalized.status).toBe(200);
    expect(finalized.body.data).toMatchObject({ number: "INV-0001", state: "open" });
    expect(finalized.body.data.hosted_url).toMatch(/\/invoice\/[0-9A-Za-z]{32}$/);
    expectDashboardError(
      await owner.post(`${API}/invoices/${invoice.id}/finalize?mode=test`),
      409,
      "invoice_not_draft",
      "The invoice is open, not a draft: only a draft can be finalized",
    );

    const voided = await owner.post(`${API}/invoices/${invoice.id}/void?mode=test`);
    expect(voided.body.data).toMatchObject({ state: "void", number: "INV-0001" });
    expectDashboardError(await owner.post(`${API}/invoices/${invoice.id}/void?mode=test`), 409, "invoice_void", "The invoice is void already");

    // Its PDF, for any role that reads (a viewer too), in the page's mode only.
    const viewer = await signedInAs(t, keys.id, "viewer");
    const pdf = await fetch(`${t.url}${API}/invoices/${invoice.id}/pdf?mode=test&document=invoice`, { headers: { cookie: viewer.cookie } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(pdf.headers.get("content-disposition")).toBe('attachment; filename="INV-0001.pdf"');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    expectDashboardError(
      await viewer.get(`${API}/invoices/${invoice.id}/pdf?mode=live`),
      404,
      "invoice_not_found",
      `No invoice with id '${invoice.id}'`,
    );
    expectDashboardError(
      await viewer.get(`${API}/invoices/${invoice.id}/pdf?mode=test&document=receipt`),
      409,
      "invoice_not_paid",
      "The invoice is void: its receipt exists once it is paid; ask for document=invoice instead",
    );

    // A developer manages invoices too.
    const developer = await signedInAs(t, keys.id, "developer");
    const second = await developer.post(`${API}/invoices?mode=test`, draft({ finalize: true }));
    expect(second.body.data).toMatchObject({ number: "INV-0002", state: "open" });
  });

  it("lets a viewer read but refuses it every change (403 role_forbidden), changing nothing", async () => {
    const keys = await t.merchant({ name: "Viewer Invoices" });
    const owner = await signedInAs(t, keys.id, "owner");
    const id = (await owner.post(`${API}/invoices?mode=test`, draft())).body.data.id as string;
    const viewer = await signedInAs(t, keys.id, "viewer");

    expect((await viewer.get(`${API}/invoices?mode=test`)).body.data.invoices.map((i: { id: string }) => i.id)).toEqual([id]);
    expect((await viewer.get(`${API}/invoices/${id}?mode=test`)).body.data.id).toBe(id);
    const before = await invoicesState();
    const message = "Your role (viewer) cannot manage invoices; ask an owner of this merchant for the owner or developer role";
    expectDashboardError(await viewer.post(`${API}/invoices?mode=test`, draft()), 403, "role_forbidden", message);
    expectDashboardError(await viewer.post(`${API}/invoices/${id}/finalize?mode=test`), 403, "role_forbidden", message);
    expectDashboardError(await viewer.post(`${API}/invoices/${id}/void?mode=test`), 403, "role_forbidden", message);
    expect(await invoicesState()).toBe(before);
  });

  it("refuses bad input with a 400 naming the field, another mode's or merchant's invoice with a 404, changing nothing", async () => {
    const keys = await t.merchant({ name: "Strict Dash Invoices" });
    const owner = await signedInAs(t, keys.id, "owner");
    const id = (await owner.post(`${API}/invoices?mode=test`, draft())).body.data.id as string;
    const before = await invoicesState();

    const noItems = await owner.post(`${API}/invoices?mode=test`, draft({ items: [] }));
    expectDashboardError(noItems, 400, "invalid_invoice_request", "Invalid invoice: items must hold at least one line item");
    expect(noItems.body.errors.map((e: { field: string }) => e.field)).toEqual(["items"]);
    const fraction = await owner.post(`${API}/invoices?mode=test`, draft({ items: [{ description: "A", quantity: 1.5, unit_price: "1" }] }));
    expectDashboardError(fraction, 400, "invalid_invoice_request", /items\.0\.quantity must be a positive integer/);
    const kobo = await owner.post(`${API}/invoices?mode=test`, draft({ items: [{ description: "A", quantity: 1, unit_price: "1.001" }] }));
    expectDashboardError(
      kobo,
      400,
      "invalid_invoice_request",
      "Invalid invoice: items.0.unit_price has more than 2 decimal places, the precision of NGN",
    );
    const email = await owner.post(`${API}/invoices?mode=test`, draft({ customer: { email: "nobody" } }));
    expectDashboardError(email, 400, "invalid_invoice_request", /customer\.email must be a valid e-mail address/);
    expectDashboardError(await owner.post(`${API}/invoices?mode=staging`, draft()), 400, "invalid_list_parameter", /mode/);
    expectDashboardError(await owner.post(`${API}/invoices?mode=test`, [1, 2]), 400, "invalid_body", "The body must be a JSON object");

    expectDashboardError(await owner.get(`${API}/invoices/${id}?mode=live`), 404, "invoice_not_found", `No invoice with id '${id}'`);
    expectDashboardError(await owner.post(`${API}/invoices/${id}/void?mode=live`), 404, "invoice_not_found", `No invoice with id '${id}'`);
    const stranger = await signedInAs(t, (await t.merchant({ name: "Stranger" })).id, "owner");
    expectDashboardError(await stranger.get(`${API}/invoices/${id}?mode=test`), 404, "invoice_not_found", `No invoice with id '${id}'`);
    expectDashboardError(await stranger.post(`${API}/invoices/${id}/finalize?mode=test`), 404, "invoice_not_found", `No invoice with id '${id}'`);
    expect(await invoicesState()).toBe(before);
  });
});

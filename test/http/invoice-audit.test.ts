// An invoice's changes in the merchant's audit log (issue 44; docs/invoices.md): who created,
// finalized, changed the language of and voided an invoice, through a secret key or the dashboard,
// written with the change; a refused change writes none.
import { describe, expect, it } from "vitest";
import { signedInAs } from "../support/dashboard.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  t = started.t;
  keys = await t.merchant({ name: "Audited Invoices Ltd" });
});

async function call(path: string, body: unknown = {}) {
  const res = await fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${keys.testSecretKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data: { id: string }; reason?: string; message?: string } };
}

const invoiceBody = (finalize: boolean) => ({
  customer: { email: "ada@example.com" },
  currency: "USD",
  items: [{ description: "Consulting", quantity: 2, unit_price: "150.00" }],
  finalize,
});

const entries = () =>
  t.db.auditLogEntry.findMany({
    where: { merchantId: keys.id, action: { startsWith: "invoice." } },
    orderBy: { id: "asc" },
    select: { action: true, target: true, actorKind: true, actorEmail: true },
  });

describe("an invoice's changes in the audit log", () => {
  it("names each change through a secret key, with the invoice, its number, the mode and what changed", async () => {
    const draft = await call("/v1/invoices", invoiceBody(false));
    expect(draft.status).toBe(201);
    const id = draft.body.data.id;
    expect((await call(`/v1/invoices/${id}`, { locale: "fr" })).status).toBe(200);
    expect((await call(`/v1/invoices/${id}/finalize`)).status).toBe(200);
    expect((await call(`/v1/invoices/${id}`, { locale: null })).status).toBe(200);
    const other = await call("/v1/invoices", invoiceBody(true));
    expect((await call(`/v1/invoices/${other.body.data.id}/void`)).status).toBe(200);

    const written = await entries();
    expect(written.map((e) => `${e.action} ${e.target}`)).toEqual([
      `invoice.create ${id} in test mode: a draft, 300.00 USD`,
      `invoice.update ${id} in test mode: language fr`,
      `invoice.finalize ${id} (INV-0001) in test mode: sent to the customer`,
      `invoice.update ${id} (INV-0001) in test mode: language none (the page follows the browser, e-mails in English)`,
      `invoice.create ${other.body.data.id} (INV-0002) in test mode: finalized, 300.00 USD`,
      `invoice.void ${other.body.data.id} (INV-0002) in test mode: voided`,
    ]);
    expect(new Set(written.map((e) => e.actorKind))).toEqual(new Set(["api_key"]));
  });

  it("writes nothing for a refused change", async () => {
    const before = await entries();
    const open = await call("/v1/invoices", invoiceBody(true));
    const afterCreate = await entries();
    expect(afterCreate).toHaveLength(before.length + 1);

    const again = await call(`/v1/invoices/${open.body.data.id}/finalize`);
    expect([again.status, again.body.reason, again.body.message]).toEqual([
      409,
      "invoice_not_draft",
      "The invoice is open, not a draft: only a draft can be finalized",
    ]);
    const bad = await call(`/v1/invoices/${open.body.data.id}`, { locale: "xx" });
    expect([bad.status, bad.body.reason]).toEqual([400, "invalid_invoice_request"]);
    expect(bad.body.message).toMatch(/^Invalid invoice: /);
    expect((await call(`/v1/invoices/${open.body.data.id}/void`)).status).toBe(200);
    const voidedAgain = await call(`/v1/invoices/${open.body.data.id}/void`);
    expect([voidedAgain.status, voidedAgain.body.reason, voidedAgain.body.message]).toEqual([409, "invoice_void", "The invoice is void already"]);
    const late = await call(`/v1/invoices/${open.body.data.id}`, { locale: "de" });
    expect([late.status, late.body.reason, late.body.message]).toEqual([
      409,
      "invoice_not_editable",
      "The invoice is void: it can no longer be changed",
    ]);

    expect((await entries()).map((e) => e.action)).toEqual([...afterCreate.map((e) => e.action), "invoice.void"]);
  });

  it("names the dashboard user who made the change, and shows it in the owner's audit log", async () => {
    const owner = await signedInAs(t, keys.id, "owner");
    const created = await owner.post("/dashboard/api/invoices?mode=test", invoiceBody(false));
    expect(created.status).toBe(201);
    const id: string = created.body.data.id;
    expect((await owner.post(`/dashboard/api/invoices/${id}/finalize?mode=test`)).status).toBe(200);

    const log = await owner.get("/dashboard/api/audit-log?limit=100");
    expect(log.status).toBe(200);
    const lines = (log.body.data.entries as { actor: { label: string }; action: string; target: string }[])
      .filter((e) => e.target.startsWith(id))
      .map((e) => `${e.actor.label}: ${e.action} ${e.target}`);
    expect(lines).toEqual([
      `${owner.email}: invoice.finalize ${id} (INV-0004) in test mode: sent to the customer`,
      `${owner.email}: invoice.create ${id} in test mode: a draft, 300.00 USD`,
    ]);
  });
});

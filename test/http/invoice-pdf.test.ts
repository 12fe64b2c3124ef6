// The PDF of an invoice and of its receipt (issue 44; docs/invoices.md, Its PDF): over REST
// (GET /v1/invoices/:id/pdf, secret key) and on the customer's link (/invoice/<token>.pdf), read
// back with Poppler's pdftotext: the items, totals, what was paid and what is left, the receipt's
// payments once paid, the page's languages; every refusal with its status and message.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const run = promisify(execFile);
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let dir: string;

beforeAll(async () => {
  [t, dir] = await Promise.all([startTestGateway(), mkdtemp(path.join(tmpdir(), "paygate-pdf-"))]);
  keys = await t.merchant({ name: "Atelier Ševčík" });
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const secret = (k = keys) => ({ authorization: `Bearer ${k.testSecretKey}` });

async function api(method: "GET" | "POST", route: string, body?: unknown) {
  const res = await fetch(`${t.url}${route}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...secret() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function invoice(overrides: Record<string, unknown> = {}) {
  const made = await api("POST", "/v1/invoices", {
    customer: { email: "lukasz@example.com", name: "Łukasz Дмитрий" },
    currency: "USD",
    items: [
      { description: "Logo design", quantity: 2, unit_price: "150.00" },
      { description: "Хостинг", quantity: 1, unit_price: "50.00" },
    ],
    taxes: [{ name: "VAT", rate: "7.5" }],
    memo: "Thank you for your business",
    due_date: "2030-01-31",
    finalize: true,
    ...overrides,
  });
  expect(made.status).toBe(201);
  return {
    id: made.body.data.id as string,
    token: String(made.body.data.hosted_url).split("/invoice/")[1] ?? "",
    number: made.body.data.number as string,
  };
}

/** The answer, and its text as pdftotext reads it (layout kept, runs of spaces made one). */
async function pdfOf(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) return { status: res.status, headers: res.headers, text: bytes.toString("utf8") };
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  await writeFile(file, bytes);
  const { stdout } = await run("pdftotext", ["-layout", "-enc", "UTF-8", file, "-"]);
  return { status: res.status, headers: res.headers, text: stdout.replace(/[ \t]+/g, " ") };
}

/** Pays what is left of the invoice through its page's Pay and the test helper. */
async function payRest(token: string): Promise<string> {
  const { transactionId } = await t.gateway.invoices.payInvoice(token, {});
  expect((await api("POST", `/v1/transaction/${transactionId}/pay`, { currency_id: "7" })).status).toBe(200);
  expect((await api("POST", `/v1/test_helpers/transaction/${transactionId}/payment`, {})).status).toBe(200);
  return transactionId;
}

describe("an invoice's PDF", () => {
  it("shows the items, totals and what is left, then once paid is its receipt with the payment", async () => {
    const inv = await invoice();
    const pdf = await pdfOf(`${t.url}/v1/invoices/${inv.id}/pdf`, secret());
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(pdf.headers.get("content-disposition")).toBe(`inline; filename="${inv.number}.pdf"`);
    const text = pdf.text;
    expect(text).toContain(`Invoice ${inv.number}`);
    expect(text).toContain("Open");
    expect(text).toContain("Test mode: no real money moves.");
    expect(text).toContain("From: Atelier Ševčík");
    expect(text).toContain("Billed to: Łukasz Дмитрий <lukasz@example.com>");
    expect(text).toContain("Due: 2030-01-31");
    expect(text).toMatch(/Logo design 2 150\.00 USD 300\.00 USD/);
    expect(text).toMatch(/Хостинг 1 50\.00 USD 50\.00 USD/);
    expect(text).toMatch(/Subtotal 350\.00 USD/);
    expect(text).toMatch(/VAT \(7\.5 %\) 26\.25 USD/);
    expect(text).toMatch(/Total 376\.25 USD/);
    expect(text).toMatch(/Paid 0\.00 USD/);
    expect(text).toMatch(/Left to pay 376\.25 USD/);
    expect(text).toContain("Thank you for your business");
    expect(text).toContain(`Pay online: ${t.url}/invoice/${inv.token}`);
    expect(text).not.toContain("Receipt");
    const unpaidPage = await (await fetch(`${t.url}/invoice/${inv.token}`)).text();
    expect(unpaidPage).toContain(`<a href="/invoice/${inv.token}.pdf?document=invoice&amp;lang=en">Invoice (PDF)</a>`);
    expect(unpaidPage).not.toContain("Receipt (PDF)");

    const transactionId = await payRest(inv.token);
    const receipt = await pdfOf(`${t.url}/v1/invoices/${inv.id}/pdf`, secret());
    expect(receipt.headers.get("content-disposition")).toBe(`inline; filename="receipt-${inv.number}.pdf"`);
    expect(receipt.text).toContain(`Receipt ${inv.number}`);
    expect(receipt.text).toMatch(/Paid 376\.25 USD/);
    expect(receipt.text).toMatch(/Left to pay 0\.00 USD/);
    expect(receipt.text).toContain("Payments");
    expect(receipt.text).toMatch(new RegExp(`${transactionId} \\d{4}-\\d{2}-\\d{2} 376\\.25 USD`));
    expect(receipt.text).toContain("Paid in full. Thank you.");
    expect(receipt.text).not.toContain("Pay online");

    // The invoice itself stays available once paid.
    const asInvoice = await pdfOf(`${t.url}/v1/invoices/${inv.id}/pdf?document=invoice`, secret());
    expect(asInvoice.text).toContain(`Invoice ${inv.number}`);
    expect(asInvoice.text).toContain("Paid");
    // The customer's page links both PDFs once paid, in its language.
    const page = await (await fetch(`${t.url}/invoice/${inv.token}?lang=fr`)).text();
    expect(page).toContain(`<a href="/invoice/${inv.token}.pdf?document=invoice&amp;lang=fr">Facture (PDF)</a>`);
    expect(page).toContain(`<a href="/invoice/${inv.token}.pdf?document=receipt&amp;lang=fr">Reçu (PDF)</a>`);
    // The customer's link gives the receipt too, in the page's languages.
    const hosted = await pdfOf(`${t.url}/invoice/${inv.token}.pdf`);
    expect(hosted.status).toBe(200);
    expect(hosted.text).toContain(`Receipt ${inv.number}`);
    const french = await pdfOf(`${t.url}/invoice/${inv.token}.pdf?lang=fr`);
    expect(french.text).toContain(`Reçu ${inv.number}`);
    expect(french.text).toMatch(/Sous-total 350\.00 USD/);
    expect(french.text).toContain("Payée intégralement. Merci.");
    const german = await pdfOf(`${t.url}/invoice/${inv.token}.pdf?document=invoice`, { "accept-language": "de-DE,de;q=0.9" });
    expect(german.text).toContain(`Rechnung ${inv.number}`);
    // Arabic, right to left: pdftotext reads its lines back in their logical order (its direction marks taken out).
    const arabic = await pdfOf(`${t.url}/invoice/${inv.token}.pdf?lang=ar`);
    const read = arabic.text.replace(/[\u200e\u200f\u202a-\u202e]/g, "");
    expect(read).toContain(`إيصال ${inv.number}`);
    expect(read).toMatch(/350\.00 USD المجموع الفرعي/);
    expect(read).toMatch(/0\.00 USD المتبقي/);
    expect(read).toContain("المدفوعات");
    expect(read).toMatch(/من ?Atelier Ševčík/);
  });

  it("of a draft is the merchant's preview, never the customer's", async () => {
    const draft = await invoice({ finalize: false });
    const pdf = await pdfOf(`${t.url}/v1/invoices/${draft.id}/pdf`, secret());
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-disposition")).toBe(`inline; filename="${draft.id}.pdf"`);
    expect(pdf.text).toContain("Draft: not sent to the customer");
    expect(pdf.text).not.toContain("Pay online");
  });

  it("refuses with the status and message: a receipt of an unpaid invoice, an unknown document, another merchant's or an unknown invoice", async () => {
    const inv = await invoice();
    const unpaid = await fetch(`${t.url}/v1/invoices/${inv.id}/pdf?document=receipt`, { headers: secret() });
    expect(unpaid.status).toBe(409);
    expect(await unpaid.json()).toMatchObject({
      status: "error",
      reason: "invoice_not_paid",
      message: "The invoice is open: its receipt exists once it is paid; ask for document=invoice instead",
    });
    const bogus = await fetch(`${t.url}/v1/invoices/${inv.id}/pdf?document=quote`, { headers: secret() });
    expect(bogus.status).toBe(400);
    expect(await bogus.json()).toMatchObject({
      reason: "invalid_invoice_request",
      message: "Invalid invoice: document must be invoice or receipt",
      errors: [{ field: "document" }],
    });
    const other = await t.merchant({ name: "Someone Else" });
    const foreign = await fetch(`${t.url}/v1/invoices/${inv.id}/pdf`, { headers: secret(other) });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ reason: "invoice_not_found", message: `No invoice with id '${inv.id}'` });
    const live = await fetch(`${t.url}/v1/invoices/${inv.id}/pdf`, { headers: { authorization: `Bearer ${keys.liveSecretKey}` } });
    expect(live.status).toBe(404);
    const publicKey = await fetch(`${t.url}/v1/invoices/${inv.id}/pdf`, { headers: { authorization: `Bearer ${keys.testPublicKey}` } });
    expect(publicKey.status).toBe(401);
    expect(((await publicKey.json()) as { message: string }).message).toMatch(/secret key/i);

    // On the customer's link: the same refusals as a page.
    const hostedUnpaid = await fetch(`${t.url}/invoice/${inv.token}.pdf?document=receipt`);
    expect(hostedUnpaid.status).toBe(409);
    expect(hostedUnpaid.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await hostedUnpaid.text()).toContain("The invoice is open: its receipt exists once it is paid; ask for document=invoice instead");
    const unknown = await fetch(`${t.url}/invoice/${"x".repeat(32)}.pdf`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("This invoice link is not valid; ask the merchant for a new one");
    const draft = await invoice({ finalize: false });
    const draftToken = (await t.db.invoice.findUniqueOrThrow({ where: { id: draft.id } })).token;
    const hostedDraft = await fetch(`${t.url}/invoice/${draftToken}.pdf`);
    expect(hostedDraft.status).toBe(404);
    expect(await hostedDraft.text()).toContain("This invoice link is not valid; ask the merchant for a new one");
  });
});

// An invoice's language (issue 44): set at creation (REST, GraphQL), it is the language of the invoice's
// e-mail and PDF attachment, of its reminders, and of the receipt and "pay the rest" of a transaction
// that pays it, whatever the checkout's; its page takes ?lang= first, then it, then Accept-Language.
// Through a real SMTP server (smtp-server, read back with mailparser); a bad value is a 400 naming it.
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { Clock } from "../../src/core/ports.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { pdfToText } from "../support/pdf.ts";
import { type SmtpInbox, startSmtpInbox } from "../support/smtp.ts";

const DAY = 24 * 60 * 60 * 1000;
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
let inbox: SmtpInbox;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let customers = 0;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  t = await startTestGateway({ clock, env: { PAYGATE_SMTP_URL: inbox.url, PAYGATE_INVOICE_REMINDER_DAYS: "-3" } });
  keys = await t.merchant({ name: "Atelier Dubois" });
});

afterAll(async () => {
  await t?.close();
  await inbox?.close();
});

const secret = () => ({ authorization: `Bearer ${keys.testSecretKey}` });

/** A customer of its own per test: a dashboard user of the merchant, so test mode sends to it. */
async function customer(): Promise<string> {
  customers += 1;
  const email = `cliente${customers}@dubois.test`;
  await t.gateway.operator.createDashboardUser({ merchantId: keys.id, email, role: "viewer", password: "correct horse battery staple" });
  return email;
}

const invoiceBody = (email: string, extra: Record<string, unknown> = {}) => ({
  customer: { email, name: "Chloé Martin" },
  currency: "USD",
  items: [{ description: "Affiche", quantity: 2, unit_price: "50.00" }],
  finalize: true,
  ...extra,
});

async function openInvoice(email: string, extra: Record<string, unknown> = {}) {
  const made = await t.post("/v1/invoices", invoiceBody(email, extra), secret());
  expect(made.status).toBe(201);
  return made.body.data as { id: string; number: string; hosted_url: string; locale: string | null; token?: string };
}

const pass = async () => {
  await t.gateway.email.follow();
  return t.gateway.email.deliver();
};

async function pdfText(mail: ParsedMail | undefined): Promise<string> {
  const attachment = mail?.attachments.find((a) => a.contentType === "application/pdf");
  expect(attachment).toBeDefined();
  return pdfToText(attachment?.content ?? Buffer.alloc(0));
}

/** The page's Pay (in English: the checkout's language is the page's), and the transaction's coin chosen. */
async function payFromPage(hostedUrl: string): Promise<string> {
  const res = await fetch(`${hostedUrl}/pay?lang=en`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "",
  });
  expect(res.status).toBe(303);
  const id = /\/checkout\/([0-9a-f-]{36})_secret_/.exec(res.headers.get("location") ?? "")?.[1] ?? "";
  expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, secret())).status).toBe(200);
  return id;
}

describe("an invoice's language", () => {
  it("is set at creation and shown; a bad value is a 400 naming locale, nothing written", async () => {
    const email = await customer();
    const before = await t.db.invoice.count();
    const bad = await t.post("/v1/invoices", invoiceBody(email, { locale: "it" }), secret());
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Invalid invoice: locale must be one of en, fr, es, pt, de, ar");
    expect(bad.body.errors).toEqual([{ field: "locale", message: "locale must be one of en, fr, es, pt, de, ar" }]);
    expect(await t.db.invoice.count()).toBe(before);
    const none = await openInvoice(email);
    expect(none.locale).toBeNull();
    const german = await openInvoice(email, { locale: "de" });
    expect(german.locale).toBe("de");
    const read = await fetch(`${t.url}/v1/invoices/${german.id}`, { headers: secret() });
    expect(((await read.json()) as { data: { locale: string } }).data.locale).toBe("de");
    expect(await pass()).toMatchObject({ sent: 2 });
  });

  it("is changed by POST /v1/invoices/:id while not paid: 404 first, 400 naming locale, 409 once paid, nothing changed", async () => {
    const email = await customer();
    const invoice = await openInvoice(email, { locale: "de" });
    const changed = await t.post(`/v1/invoices/${invoice.id}`, { locale: "pt" }, secret());
    expect(changed.status).toBe(200);
    expect(changed.body.data.locale).toBe("pt");
    expect((await t.post(`/v1/invoices/${invoice.id}`, { locale: null }, secret())).body.data.locale).toBeNull();
    const unknown = await t.post("/v1/invoices/inv_00000000-0000-0000-0000-000000000000", { locale: "xx" }, secret());
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("No invoice with id 'inv_00000000-0000-0000-0000-000000000000'");
    for (const body of [{ locale: "it" }, {}]) {
      const bad = await t.post(`/v1/invoices/${invoice.id}`, body, secret());
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(["locale"]);
    }
    const paid = await openInvoice(email, { locale: "es" });
    const id = await payFromPage(paid.hosted_url);
    expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret())).status).toBe(200);
    const late = await t.post(`/v1/invoices/${paid.id}`, { locale: "fr" }, secret());
    expect(late.status).toBe(409);
    expect(late.body.message).toBe("The invoice is paid: it can no longer be changed");
    expect(await t.db.invoice.findUniqueOrThrow({ where: { id: paid.id } })).toMatchObject({ locale: "es" });
    expect(await t.db.invoice.findUniqueOrThrow({ where: { id: invoice.id } })).toMatchObject({ locale: null });
    await pass();
  });

  it("writes the invoice's e-mail and its PDF in it", async () => {
    const email = await customer();
    const invoice = await openInvoice(email, { locale: "fr" });
    expect(await pass()).toMatchObject({ sent: 1 });
    const [mail] = inbox.to(email);
    expect(mail?.subject).toBe(`Facture ${invoice.number} de Atelier Dubois`);
    expect(mail?.html).toContain('<html lang="fr" dir="ltr">');
    expect(await pdfText(mail)).toContain(`Facture ${invoice.number}`);
    expect(await t.db.emailMessage.findMany({ where: { invoiceId: invoice.id }, select: { locale: true } })).toEqual([{ locale: "fr" }]);
  });

  it("gives its page ?lang= first, then the invoice's language, then the browser's", async () => {
    const email = await customer();
    const spanish = await openInvoice(email, { locale: "es" });
    const page = async (url: string, headers: Record<string, string> = {}) => (await fetch(url, { headers })).text();
    expect(await page(spanish.hosted_url, { "accept-language": "de-DE,de;q=0.9" })).toContain(`Factura ${spanish.number}`);
    expect(await page(`${spanish.hosted_url}?lang=pt`, { "accept-language": "de" })).toContain(`Fatura ${spanish.number}`);
    const unset = await openInvoice(email);
    expect(await page(unset.hosted_url, { "accept-language": "de-DE,de;q=0.9" })).toContain(`Rechnung ${unset.number}`);
    // Its PDF likewise, for the customer and for the merchant's key.
    const pdf = async (url: string, headers: Record<string, string> = {}) => {
      const res = await fetch(url, { headers });
      expect(res.status).toBe(200);
      return pdfToText(Buffer.from(await res.arrayBuffer()));
    };
    expect(await pdf(`${spanish.hosted_url}.pdf`, { "accept-language": "de" })).toContain(`Factura ${spanish.number}`);
    expect(await pdf(`${t.url}/v1/invoices/${spanish.id}/pdf`, secret())).toContain(`Factura ${spanish.number}`);
    expect(await pdf(`${t.url}/v1/invoices/${spanish.id}/pdf?lang=fr`, secret())).toContain(`Facture ${spanish.number}`);
  });

  it("writes 'pay the rest' and the receipt of a transaction paying it in it, whatever the checkout's language", async () => {
    const email = await customer();
    const invoice = await openInvoice(email, { locale: "fr" });
    await pass();
    const id = await payFromPage(invoice.hosted_url);
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).locale).toBe("en");
    const due = new Decimal((await t.db.transaction.findUniqueOrThrow({ where: { id } })).paymentAmount?.toString() ?? "0");
    const half = due.div(2).toDecimalPlaces(8, Decimal.ROUND_DOWN);
    expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, { amount: half.toFixed() }, secret())).status).toBe(200);
    expect(await pass()).toMatchObject({ sent: 1 });
    expect(inbox.to(email).at(-1)?.subject).toBe("Votre paiement à Atelier Dubois n'est pas complet");
    const rest = await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret());
    expect(rest.status).toBe(200);
    expect(rest.body.data.status).toBe("SUCCESSFUL");
    expect(await pass()).toMatchObject({ sent: 1 });
    expect(inbox.to(email).at(-1)?.subject).toBe("Votre reçu de Atelier Dubois");
    const rows = await t.db.emailMessage.findMany({ where: { transactionId: id }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => [r.kind, r.locale])).toEqual([
      ["pay_rest", "fr"],
      ["receipt", "fr"],
    ]);
  });

  // Last: it moves the clock, and the events of the tests after it would be before the follower's cursor.
  it("writes a reminder in it", async () => {
    const email = await customer();
    const due = clock.now().getTime() + 5 * DAY;
    const invoice = await openInvoice(email, { locale: "fr", due_date: new Date(due).toISOString().slice(0, 10) });
    await pass();
    offsetMs += 2 * DAY;
    expect(await pass()).toMatchObject({ sent: 1 });
    expect(inbox.to(email).map((m) => m.subject)).toEqual([
      `Facture ${invoice.number} de Atelier Dubois`,
      `Rappel\u00a0: facture ${invoice.number} de Atelier Dubois`,
    ]);
    expect(inbox.to(email)[1]?.text).toContain("Votre facture est à payer dans 3 jour(s)");
  });
});

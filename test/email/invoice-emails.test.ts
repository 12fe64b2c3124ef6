// Invoices' e-mails and the merchant's notices (issue 44) through a real SMTP server (smtp-server, read
// back with mailparser): the invoice e-mailed when finalized with its page's link and its PDF (read with
// pdftotext), reminders before and after the due date by a moved clock (each once, however many passes),
// none for a paid or voided invoice, invoice.partially_paid and invoice.overdue delivered as webhooks, the
// notices of a payment and of a disabled endpoint to the users who asked for them only, and the errors.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import type { Clock } from "../../src/core/ports.ts";
import { ConfigError } from "../../src/env.ts";
import { initializeBody } from "../support/builders.ts";
import { type DashboardClient, signedInAs } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { type SmtpInbox, startSmtpInbox } from "../support/smtp.ts";
import { allVerifiedPayloads, startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const run = promisify(execFile);
const DAY = 24 * 60 * 60 * 1000;
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
let inbox: SmtpInbox;
let receiver: WebhookReceiver;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let customers = 0;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  receiver = await startWebhookReceiver();
  t = await startTestGateway({
    clock,
    env: { PAYGATE_SMTP_URL: inbox.url, PAYGATE_EMAIL_MAX_ATTEMPTS: "3", PAYGATE_INVOICE_REMINDER_DAYS: "-3,0,2" },
  });
  keys = await t.merchant({ name: "Okafor Design", testWebhookUrl: receiver.url });
});

afterAll(async () => {
  await receiver?.close();
  await t?.close();
  await inbox?.close();
});

const secret = () => ({ authorization: `Bearer ${keys.testSecretKey}` });

/** A customer of its own per test: a dashboard user of the merchant, so test mode sends to it. */
async function customer(): Promise<string> {
  customers += 1;
  const email = `client${customers}@okafor.test`;
  await t.gateway.operator.createDashboardUser({ merchantId: keys.id, email, role: "viewer", password: "correct horse battery staple" });
  return email;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function openInvoice(email: string, extra: Record<string, unknown> = {}) {
  const made = await t.post(
    "/v1/invoices",
    {
      customer: { email, name: "Chidi Eze" },
      currency: "USD",
      items: [{ description: "Logo design", quantity: 3, unit_price: "120.00" }],
      taxes: [{ name: "VAT", rate: "7.5" }],
      finalize: true,
      ...extra,
    },
    secret(),
  );
  expect(made.status).toBe(201);
  return { id: made.body.data.id as string, number: made.body.data.number as string, hostedUrl: made.body.data.hosted_url as string };
}

/** The page's Pay for an amount (when partial payments are allowed), then the transaction paid in full by the test helper. */
async function payPart(hostedUrl: string, amount?: string): Promise<string> {
  const res = await fetch(`${hostedUrl}/pay`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(amount ? { amount } : {}).toString(),
  });
  expect(res.status).toBe(303);
  const id = /\/checkout\/([0-9a-f-]{36})_secret_/.exec(res.headers.get("location") ?? "")?.[1] ?? "";
  expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, secret())).status).toBe(200);
  expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret())).status).toBe(200);
  return id;
}

const pass = async () => {
  await t.gateway.email.follow();
  return t.gateway.email.deliver();
};
const rowsOf = (invoiceId: string) => t.db.emailMessage.findMany({ where: { invoiceId }, orderBy: { createdAt: "asc" } });

async function pdfText(mail: ParsedMail | undefined): Promise<string> {
  const attachment = mail?.attachments.find((a) => a.contentType === "application/pdf");
  expect(attachment).toBeDefined();
  const dir = await mkdtemp(path.join(tmpdir(), "paygate-mail-"));
  try {
    const file = path.join(dir, attachment?.filename ?? "invoice.pdf");
    await writeFile(file, attachment?.content ?? Buffer.alloc(0));
    const { stdout } = await run("pdftotext", ["-layout", "-enc", "UTF-8", file, "-"]);
    return stdout.replace(/[ \t]+/g, " ");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("the invoice e-mailed to its customer", () => {
  it("sends it once when finalized, with the page's link and its PDF attached", async () => {
    const email = await customer();
    const invoice = await openInvoice(email);
    expect(await pass()).toMatchObject({ sent: 1, failed: 0 });
    expect(await pass()).toMatchObject({ sent: 0 });
    const mails = inbox.to(email);
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail?.subject).toBe(`Invoice ${invoice.number} from Okafor Design`);
    expect(mail?.text).toContain("Okafor Design sent you an invoice for 387.00 USD. View and pay it online:");
    expect(mail?.text).toContain(`View and pay the invoice: ${invoice.hostedUrl}`);
    expect(mail?.html).toContain(`href="${invoice.hostedUrl}"`);
    expect(mail?.attachments.map((a) => a.filename)).toEqual([`${invoice.number}.pdf`]);
    const text = await pdfText(mail);
    expect(text).toContain(`Invoice ${invoice.number}`);
    expect(text).toContain("Logo design");
    expect(text).toContain("387.00 USD");
    const [row] = await rowsOf(invoice.id);
    expect(row).toMatchObject({ kind: "invoice", state: "SENT", transactionId: null, recipient: email });
    // The dashboard's list of the invoice's e-mails shows it and its state.
    const owner = await signedInAs(t, keys.id, "owner");
    const listed = await owner.get(`/dashboard/api/invoices/${invoice.id}/emails?mode=test`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toMatchObject({ enabled: true, reason: null, emails: [{ kind: "invoice", state: "sent", recipient: email }] });
  });

  it("retries a server that refuses, then sends it once", async () => {
    const email = await customer();
    inbox.refuseNext(1, 451);
    const invoice = await openInvoice(email);
    expect(await pass()).toMatchObject({ sent: 0, retried: 1 });
    expect(inbox.to(email)).toHaveLength(0);
    const [queued] = await rowsOf(invoice.id);
    expect(queued).toMatchObject({ state: "QUEUED", attemptCount: 1 });
    expect(queued?.lastError).toContain("mailbox busy, try again later");
    offsetMs += 61_000;
    expect(await pass()).toMatchObject({ sent: 1, retried: 0 });
    expect(inbox.to(email)).toHaveLength(1);
    expect(inbox.to(email)[0]?.attachments).toHaveLength(1);
  });

  it("does not send the invoice once voided: the row says why", async () => {
    const email = await customer();
    const invoice = await openInvoice(email);
    await t.gateway.email.follow();
    expect((await t.post(`/v1/invoices/${invoice.id}/void`, {}, secret())).status).toBe(200);
    expect(await t.gateway.email.deliver()).toMatchObject({ sent: 0, skipped: 1 });
    expect(inbox.to(email)).toHaveLength(0);
    expect(await rowsOf(invoice.id)).toMatchObject([{ kind: "invoice", state: "SKIPPED", lastError: "the invoice is void" }]);
  });
});

describe("invoice.partially_paid", () => {
  it("is delivered when a payment covers part of the invoice, once", async () => {
    const email = await customer();
    const invoice = await openInvoice(email, { allow_partial_payments: true });
    await payPart(invoice.hostedUrl, "100.00");
    await payPart(invoice.hostedUrl, "50.00");
    await t.dispatcher().drain();
    const delivered = allVerifiedPayloads(receiver, keys.webhookSecret).filter((p) => p.data.invoice?.id === invoice.id);
    expect(delivered.map((p) => p.event).sort()).toEqual(["invoice.finalized", "invoice.partially_paid"]);
    const partial = delivered.find((p) => p.event === "invoice.partially_paid");
    expect(partial?.data.invoice).toMatchObject({ state: "partially_paid", amount_paid: "100.00", amount_due: "287.00" });
  });
});

describe("the merchant's notices", () => {
  let asker: DashboardClient;
  let other: DashboardClient;

  beforeAll(async () => {
    asker = await signedInAs(t, keys.id, "viewer");
    other = await signedInAs(t, keys.id, "owner");
  });

  it("is off by default and set by each user for their own account only", async () => {
    expect((await asker.get("/dashboard/api/account/email-notices")).body.data).toEqual({ enabled: false, sending: true, not_sent_because: null });
    const on = await asker.patch(`/dashboard/api/users/${asker.userId}/email-notices`, { enabled: true });
    expect(on.status).toBe(200);
    expect(on.body.data).toEqual({ user_id: asker.userId, enabled: true });
    expect((await asker.get("/dashboard/api/account/email-notices")).body.data.enabled).toBe(true);
  });

  it("refuses another user's setting (403), another merchant's user (404) and a bad value (400), changing nothing", async () => {
    const forOther = await asker.patch(`/dashboard/api/users/${other.userId}/email-notices`, { enabled: true });
    expect(forOther.status).toBe(403);
    expect(forOther.body.message).toBe("E-mail notices are each user's own choice: sign in as that user to turn them on or off");
    const elsewhere = await t.merchant({ name: "Elsewhere Ltd" });
    const stranger = await signedInAs(t, elsewhere.id, "owner");
    const across = await stranger.patch(`/dashboard/api/users/${asker.userId}/email-notices`, { enabled: false });
    expect(across.status).toBe(404);
    expect(across.body.message).toBe(`No dashboard user with id '${asker.userId}' at this merchant`);
    const bad = await asker.patch(`/dashboard/api/users/${asker.userId}/email-notices`, { enabled: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("enabled must be true or false");
    expect((await t.db.dashboardUser.findUniqueOrThrow({ where: { id: other.userId } })).emailNotices).toBe(false);
    expect((await t.db.dashboardUser.findUniqueOrThrow({ where: { id: asker.userId } })).emailNotices).toBe(true);
  });

  it("tells a payment received to the users who asked, not to the others", async () => {
    const init = await t.post("/v1/transaction", initializeBody({ customer: { email: "buyer@example.com" } }), {
      authorization: `Bearer ${keys.testPublicKey}`,
    });
    expect(init.status).toBe(201);
    const id: string = init.body.data.id;
    expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, secret())).status).toBe(200);
    expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret())).status).toBe(200);
    await pass();
    const reference: string = init.body.data.reference;
    const told = inbox.to(asker.email).filter((m) => m.subject === `Okafor Design: payment received (${reference})`);
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain("from buyer@example.com was received and confirmed.");
    expect(inbox.to(other.email).filter((m) => m.subject?.includes("payment received"))).toHaveLength(0);
    await pass();
    expect(inbox.to(asker.email).filter((m) => m.subject === `Okafor Design: payment received (${reference})`)).toHaveLength(1);
  });

  it("tells a webhook endpoint disabled to the users who asked", async () => {
    const made = await t.post("/v1/webhook_endpoints", { url: `${receiver.url}/second`, enabled_events: ["*"] }, secret());
    expect(made.status).toBe(201);
    const disabled = await t.post(`/v1/webhook_endpoints/${made.body.data.id}`, { disabled: true }, secret());
    expect(disabled.status).toBe(200);
    await pass();
    const told = inbox.to(asker.email).filter((m) => m.subject === "Okafor Design: a webhook endpoint was disabled");
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain(`The webhook endpoint ${receiver.url}/second was disabled by a user of your dashboard.`);
    expect(inbox.to(other.email).filter((m) => m.subject?.includes("webhook endpoint"))).toHaveLength(0);
  });
});

describe("reminders by a moved clock", () => {
  it("sends no reminder for a paid invoice, and no invoice.overdue", async () => {
    const email = await customer();
    const due = clock.now().getTime() + 5 * DAY;
    const invoice = await openInvoice(email, { due_date: day(due) });
    await pass();
    await payPart(invoice.hostedUrl);
    for (const step of [2, 3, 1, 2]) {
      offsetMs += step * DAY;
      await pass();
    }
    expect(await t.gateway.invoices.writeOverdueEvents()).toBe(0);
    expect(inbox.to(email).map((m) => m.subject)).toEqual([`Invoice ${invoice.number} from Okafor Design`, "Your receipt from Okafor Design"]);
    expect((await rowsOf(invoice.id)).map((r) => r.kind)).toEqual(["invoice"]);
  });
  it("reminds before the due date, on it and after it (overdue), each once, and writes invoice.overdue once", async () => {
    const email = await customer();
    const due = clock.now().getTime() + 10 * DAY;
    const invoice = await openInvoice(email, { due_date: day(due) });
    await pass();
    expect(inbox.to(email)).toHaveLength(1); // the invoice itself
    // 4 days before: no reminder day has come.
    offsetMs += 6 * DAY;
    expect(await pass()).toMatchObject({ sent: 0 });
    // 3 days before: the reminder, once, however many passes (two instances at once too).
    offsetMs += DAY;
    await Promise.all([t.gateway.email.follow(), t.gateway.email.follow()]);
    await Promise.all([t.gateway.email.deliver(), t.gateway.email.deliver()]);
    await pass();
    const subjects = () => inbox.to(email).map((m) => m.subject);
    expect(subjects()).toEqual([`Invoice ${invoice.number} from Okafor Design`, `Reminder: invoice ${invoice.number} from Okafor Design`]);
    expect(inbox.to(email)[1]?.text).toContain("Your invoice is due in 3 day(s)");
    expect(inbox.to(email)[1]?.text).toContain(invoice.hostedUrl);
    // The due date: the day's reminder; then the day after it, overdue, but no reminder day (2 is the next).
    offsetMs += 3 * DAY;
    await pass();
    expect(inbox.to(email).at(-1)?.text).toContain("Your invoice is due today. 387.00 USD is left to pay:");
    offsetMs += DAY;
    await pass();
    expect(inbox.to(email)).toHaveLength(3);
    expect(await t.gateway.invoices.writeOverdueEvents()).toBe(1);
    expect(await t.gateway.invoices.writeOverdueEvents()).toBe(0);
    await t.dispatcher().drain();
    // Signed at the moved clock's time: read as sent (the signature is checked in the tests that do not move it).
    const overdue = receiver.received
      .map((r) => JSON.parse(r.body) as { event: string; data: { invoice?: { id: string } } })
      .filter((p) => p.event === "invoice.overdue" && p.data.invoice?.id === invoice.id);
    expect(overdue).toHaveLength(1);
    expect(overdue[0]?.data.invoice).toMatchObject({ state: "overdue", amount_due: "387.00" });
    // Two days after it: the overdue reminder, once.
    offsetMs += DAY;
    await pass();
    await pass();
    expect(subjects().at(-1)).toBe(`Overdue: invoice ${invoice.number} from Okafor Design`);
    expect(inbox.to(email)).toHaveLength(4);
    expect((await rowsOf(invoice.id)).map((r) => [r.kind, r.source, r.state])).toEqual([
      ["invoice", expect.stringMatching(/^evt_/), "SENT"],
      ["invoice_reminder", `${invoice.id}:reminder:-3`, "SENT"],
      ["invoice_reminder", `${invoice.id}:reminder:0`, "SENT"],
      ["invoice_overdue", `${invoice.id}:reminder:2`, "SENT"],
    ]);
  });
});

describe("PAYGATE_INVOICE_REMINDER_DAYS", () => {
  it("refuses what is not a list of whole days, naming the variable and the part", () => {
    for (const [value, why] of [
      ["-3,x", '"x" is not a whole number of days from -90 to 90 (e.g. "-3,1,7")'],
      ["1.5", '"1.5" is not a whole number of days from -90 to 90 (e.g. "-3,1,7")'],
      ["200", '"200" is not a whole number of days from -90 to 90 (e.g. "-3,1,7")'],
      ["1,1", "1 is listed twice"],
      ["1,,2", '"" is not a whole number of days from -90 to 90 (e.g. "-3,1,7")'],
    ]) {
      expect(() => loadConfig({ PAYGATE_INVOICE_REMINDER_DAYS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ PAYGATE_INVOICE_REMINDER_DAYS: value })).toThrow(
        `PAYGATE_INVOICE_REMINDER_DAYS: must be whole days from the due date separated by commas: ${why}`,
      );
    }
    expect(loadConfig({ PAYGATE_INVOICE_REMINDER_DAYS: " 7, -3 ,1" }).email.reminderDays).toEqual([-3, 1, 7]);
    expect(loadConfig({}).email.reminderDays).toEqual([-3, 1, 7]);
    expect(loadConfig({ PAYGATE_INVOICE_REMINDER_DAYS: "none" }).email.reminderDays).toEqual([]);
  });
});

// Customers' e-mails (issue 44) through a real SMTP server (smtp-server, read back with mailparser): the
// receipt of a paid test transaction, "pay the rest" with the checkout link, a refund's claim link, a
// server that refuses then accepts (retried, sent once), attempts spent (failed), test mode's recipients,
// and no PAYGATE_SMTP_URL (nothing sent, the rows say why).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { Clock } from "../../src/core/ports.ts";
import { EMAIL_OFF } from "../../src/core/facades/email.ts";
import { TEST_MODE_SKIP } from "../../src/core/email/derive.ts";
import { initializeBody } from "../support/builders.ts";
import { signedInAs } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { type SmtpInbox, startSmtpInbox } from "../support/smtp.ts";

let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
let inbox: SmtpInbox;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let customers = 0;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  t = await startTestGateway({
    clock,
    env: { PAYGATE_SMTP_URL: inbox.url, PAYGATE_EMAIL_MAX_ATTEMPTS: "3", PAYGATE_EMAIL_FROM: "Shop <pay@shop.test>" },
  });
  keys = await t.merchant({ name: "Lovelace & Sons" });
});

afterAll(async () => {
  await t?.close();
  await inbox?.close();
});

/** A customer of its own per test: a dashboard user of the merchant, so test mode sends to it. */
async function customer(): Promise<string> {
  customers += 1;
  const email = `buyer${customers}@shop.test`;
  await t.gateway.operator.createDashboardUser({ merchantId: keys.id, email, role: "viewer", password: "correct horse battery staple" });
  return email;
}

const secret = () => ({ authorization: `Bearer ${keys.testSecretKey}` });

async function initiated(email: string, extra: Record<string, unknown> = {}): Promise<{ id: string; checkoutUrl: string }> {
  const init = await t.post(
    "/v1/transaction",
    { ...initializeBody({ customer: { email } }), ...extra },
    { authorization: `Bearer ${keys.testPublicKey}` },
  );
  expect(init.status).toBe(201);
  const id: string = init.body.data.id;
  const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, secret());
  expect(pay.status).toBe(200);
  return { id, checkoutUrl: init.body.data.checkout_url };
}

const pay = async (id: string, body: Record<string, unknown> = {}) =>
  expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, body, secret())).status).toBe(200);
const rowsOf = (transactionId: string) => t.db.emailMessage.findMany({ where: { transactionId }, orderBy: { createdAt: "asc" } });
const pass = async () => {
  await t.gateway.email.follow();
  return t.gateway.email.deliver();
};

describe("e-mails through a real SMTP server", () => {
  it("sends the receipt of a paid test transaction once, in the checkout's language, as text and HTML", async () => {
    const email = await customer();
    const { id } = await initiated(email, { locale: "fr" });
    await pay(id);
    expect(await pass()).toMatchObject({ sent: 1, failed: 0 });
    const [mail] = inbox.to(email);
    expect(inbox.to(email)).toHaveLength(1);
    expect(mail?.subject).toBe("Votre reçu de Lovelace & Sons");
    expect(mail?.from?.text).toBe('"Shop" <pay@shop.test>');
    const transaction = await t.db.transaction.findUniqueOrThrow({ where: { id }, include: { receipts: true } });
    const paid = new Decimal(transaction.amountPaid?.toString() ?? "0").toFixed();
    expect(mail?.text).toContain(`Lovelace & Sons a reçu votre paiement de ${paid} LTC (100.00 USD).`);
    expect(mail?.text).toContain("Mode test");
    const hash = transaction.receipts[0]?.txHash ?? "";
    expect(hash).not.toBe("");
    expect(mail?.text).toContain(`Transaction: ${hash}`);
    expect(mail?.html).toContain('<html lang="fr" dir="ltr">');
    expect(mail?.html).toContain("Lovelace &amp; Sons a reçu votre paiement");
    expect(mail?.messageId).toMatch(/^<eml_[0-9A-Za-z]+@shop\.test>$/);
    const rows = await rowsOf(id);
    expect(rows.map((r) => [r.kind, r.state, r.attemptCount, r.recipient])).toEqual([["receipt", "SENT", 1, email]]);
    // Read again (the follower re-reads a margin) and sent again: nothing new.
    expect(await pass()).toMatchObject({ sent: 0 });
    expect(inbox.to(email)).toHaveLength(1);
    expect(await rowsOf(id)).toHaveLength(1);
  });

  it("sends 'pay the rest' after an underpayment with the transaction's checkout link, and no second one", async () => {
    const email = await customer();
    const { id, checkoutUrl } = await initiated(email);
    const due = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    const half = new Decimal(due.paymentAmount?.toString() ?? "0").div(2).toDecimalPlaces(8, Decimal.ROUND_DOWN);
    await pay(id, { amount: half.toFixed() });
    expect(await pass()).toMatchObject({ sent: 1 });
    const [mail] = inbox.to(email);
    expect(mail?.subject).toBe("Your payment to Lovelace & Sons is not complete");
    const rest = new Decimal(due.paymentAmount?.toString() ?? "0").minus(half).toFixed();
    expect(mail?.text).toContain(`Send the remaining ${rest} LTC`);
    expect(mail?.text).toContain(`Pay the rest: ${checkoutUrl}`);
    expect(mail?.html).toContain(`href="${checkoutUrl}"`);
    const page = await fetch(checkoutUrl);
    expect(page.status).toBe(200);
    // A second part payment still short: one message per transaction.
    await pay(id, { amount: new Decimal(half).div(2).toDecimalPlaces(8, Decimal.ROUND_DOWN).toFixed() });
    expect(await pass()).toMatchObject({ sent: 0 });
    expect(inbox.to(email)).toHaveLength(1);
  });

  it("sends a refund's claim link to the customer; the link opens the claim page", async () => {
    const email = await customer();
    const { id } = await initiated(email, { locale: "de" });
    await pay(id);
    const made = await t.post(`/v1/transaction/${id}/refunds`, { amount_kind: "full" }, secret());
    expect(made.status).toBe(201);
    const refundUrl: string = made.body.data.refund_url;
    expect(await pass()).toMatchObject({ sent: 2 });
    const claim = inbox.to(email).find((m) => m.subject === "Lovelace & Sons sendet Ihnen eine Erstattung");
    expect(claim?.text).toContain(`Erstattungsadresse angeben: ${refundUrl}`);
    const page = await fetch(refundUrl);
    expect(page.status).toBe(200);
    // The dashboard's transaction page lists them with their state; another merchant's user sees none.
    const viewer = await signedInAs(t, keys.id, "viewer");
    const listed = await viewer.get(`/dashboard/api/transactions/${id}/emails?mode=test`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.enabled).toBe(true);
    const listedKinds = listed.body.data.emails.map((m: { kind: string; state: string; attempts: number }) => [m.kind, m.state, m.attempts]);
    expect(listedKinds.sort()).toEqual([
      ["receipt", "sent", 1],
      ["refund_claim", "sent", 1],
    ]);
    const other = await t.merchant({ name: "Other Shop" });
    const stranger = await signedInAs(t, other.id, "owner");
    const theirs = await stranger.get(`/dashboard/api/transactions/${id}/emails?mode=test`);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.emails).toEqual([]);
    const rows = await rowsOf(id);
    expect(rows.map((r) => [r.kind, r.state, r.refundId])).toEqual([
      ["receipt", "SENT", null],
      ["refund_claim", "SENT", made.body.data.id],
    ]);
  });

  it("retries a server that refuses, with a doubling wait, and sends the message once", async () => {
    const email = await customer();
    const { id } = await initiated(email);
    await pay(id);
    inbox.refuseNext(1, 451);
    expect(await pass()).toMatchObject({ sent: 0, retried: 1 });
    let [row] = await rowsOf(id);
    expect(row?.state).toBe("QUEUED");
    expect(row?.attemptCount).toBe(1);
    expect(row?.lastError).toContain("451");
    expect((row?.nextAttemptAt.getTime() ?? 0) - clock.now().getTime()).toBeGreaterThan(55_000);
    // Not due yet: nothing is attempted.
    expect(await pass()).toMatchObject({ sent: 0, retried: 0 });
    offsetMs += 61_000;
    expect(await pass()).toMatchObject({ sent: 1 });
    [row] = await rowsOf(id);
    expect([row?.state, row?.attemptCount, row?.lastError]).toEqual(["SENT", 2, null]);
    expect(inbox.to(email)).toHaveLength(1);
  });

  it("shows a message as failed once its attempts are spent", async () => {
    const email = await customer();
    const { id } = await initiated(email);
    await pay(id);
    inbox.refuseNext(3, 550);
    expect(await pass()).toMatchObject({ retried: 1 });
    offsetMs += 61_000;
    expect(await pass()).toMatchObject({ retried: 1 });
    offsetMs += 121_000;
    expect(await pass()).toMatchObject({ failed: 1 });
    const [row] = await rowsOf(id);
    expect([row?.state, row?.attemptCount]).toEqual(["FAILED", 3]);
    expect(row?.lastError).toContain("550");
    offsetMs += 3_600_000;
    expect(await pass()).toMatchObject({ sent: 0, failed: 0 });
    expect(inbox.to(email)).toHaveLength(0);
  });

  it("never lets two senders send one message", async () => {
    const email = await customer();
    const { id } = await initiated(email);
    await pay(id);
    await t.gateway.email.follow();
    const results = await Promise.all([t.gateway.email.deliver(), t.gateway.email.deliver()]);
    expect(results.reduce((sum, r) => sum + r.sent, 0)).toBe(1);
    expect(inbox.to(email)).toHaveLength(1);
  });

  it("sends a test transaction's mail only to the merchant's dashboard users", async () => {
    const { id } = await initiated("stranger@example.com");
    await pay(id);
    expect(await pass()).toMatchObject({ sent: 0 });
    const [row] = await rowsOf(id);
    expect([row?.kind, row?.state, row?.lastError]).toEqual(["receipt", "SKIPPED", TEST_MODE_SKIP]);
    expect(inbox.to("stranger@example.com")).toHaveLength(0);
  });

  it("lists the merchant's messages in the access's mode, newest first, and refuses a bad limit", async () => {
    const access = t.gateway.access.operator(keys.id, false);
    const listed = await t.gateway.email.list(access, { limit: 100 });
    expect(listed.length).toBeGreaterThan(5);
    expect(listed.every((m) => m.merchantId === keys.id && !m.isLive)).toBe(true);
    expect(await t.gateway.email.list(t.gateway.access.operator(keys.id, true))).toEqual([]);
    await expect(t.gateway.email.list(access, { limit: 0 })).rejects.toMatchObject({
      code: "validation_error",
      message: "Invalid query parameter: limit must be an integer from 1 to 100",
    });
    expect(t.gateway.email.status()).toEqual({ enabled: true, reason: null });
  });
});

describe("without PAYGATE_SMTP_URL", () => {
  let off: TestGateway;
  beforeAll(async () => {
    off = await startTestGateway();
  });
  afterAll(async () => {
    await off?.close();
  });

  it("sends nothing and writes each message as not sent, saying why", async () => {
    const merchant = await off.merchant({ name: "Quiet Shop" });
    await off.gateway.operator.createDashboardUser({
      merchantId: merchant.id,
      email: "ada@example.com",
      role: "viewer",
      password: "correct horse battery staple",
    });
    const init = await off.post("/v1/transaction", initializeBody(), { authorization: `Bearer ${merchant.testPublicKey}` });
    const id: string = init.body.data.id;
    const auth = { authorization: `Bearer ${merchant.testSecretKey}` };
    expect((await off.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, auth)).status).toBe(200);
    expect((await off.post(`/v1/test_helpers/transaction/${id}/payment`, {}, auth)).status).toBe(200);
    expect(off.gateway.email.status()).toEqual({ enabled: false, reason: EMAIL_OFF });
    expect(await off.gateway.email.follow()).toBe(1);
    expect(await off.gateway.email.deliver()).toEqual({ sent: 0, retried: 0, failed: 0, skipped: 0 });
    const rows = await off.db.emailMessage.findMany({ where: { transactionId: id } });
    expect(rows.map((r) => [r.kind, r.state, r.lastError, r.attemptCount])).toEqual([["receipt", "SKIPPED", EMAIL_OFF, 0]]);
    const viewer = await signedInAs(off, merchant.id, "viewer");
    const listed = await viewer.get(`/dashboard/api/transactions/${id}/emails?mode=test`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toMatchObject({
      enabled: false,
      reason: EMAIL_OFF,
      emails: [{ kind: "receipt", state: "skipped", last_error: EMAIL_OFF }],
    });
  });
});

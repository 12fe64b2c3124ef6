// Each dashboard user's notice language (issue 44): read and set by the user itself only (403 for another
// user of the merchant, 404 for anyone else's, 400 naming locale for a bad value, nothing changed), and the
// merchant's notices written in it (a payment received, an own address's unmatched receipt), through a
// real SMTP server (smtp-server, read back with mailparser).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { unmatchedEvent } from "../../src/core/own-addresses/matching.ts";
import { ownAddressStore } from "../../src/db/stores/own-addresses.ts";
import { initializeBody } from "../support/builders.ts";
import { type DashboardClient, signedInAs } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { type SmtpInbox, startSmtpInbox } from "../support/smtp.ts";

let inbox: SmtpInbox;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let french: DashboardClient;
let english: DashboardClient;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  t = await startTestGateway({ env: { PAYGATE_SMTP_URL: inbox.url } });
  keys = await t.merchant({ name: "Maison Leroy" });
  french = await signedInAs(t, keys.id, "viewer");
  english = await signedInAs(t, keys.id, "owner");
});

afterAll(async () => {
  await t?.close();
  await inbox?.close();
});

const LANGUAGES = ["en", "fr", "es", "pt", "de", "ar"];

describe("a user's notice language", () => {
  it("is English by default, and set by each user for its own account", async () => {
    expect((await french.get("/dashboard/api/account/notice-language")).body.data).toEqual({ locale: "en", languages: LANGUAGES });
    const set = await french.patch(`/dashboard/api/users/${french.userId}/notice-language`, { locale: "fr" });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({ user_id: french.userId, locale: "fr" });
    expect((await french.get("/dashboard/api/account/notice-language")).body.data.locale).toBe("fr");
    expect((await english.get("/dashboard/api/account/notice-language")).body.data.locale).toBe("en");
  });

  it("refuses another user's (403), another merchant's user (404) and a bad value (400 naming locale), changing nothing", async () => {
    const forOther = await french.patch(`/dashboard/api/users/${english.userId}/notice-language`, { locale: "de" });
    expect(forOther.status).toBe(403);
    expect(forOther.body.message).toBe("The language of e-mail notices is each user's own choice: sign in as that user to change it");
    const elsewhere = await t.merchant({ name: "Ailleurs SARL" });
    const stranger = await signedInAs(t, elsewhere.id, "owner");
    const across = await stranger.patch(`/dashboard/api/users/${french.userId}/notice-language`, { locale: "de" });
    expect(across.status).toBe(404);
    expect(across.body.message).toBe(`No dashboard user with id '${french.userId}' at this merchant`);
    for (const locale of ["it", "", 3, null]) {
      const bad = await french.patch(`/dashboard/api/users/${french.userId}/notice-language`, { locale });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe("locale must be one of en, fr, es, pt, de, ar");
      expect(bad.body.errors).toEqual([{ field: "locale", message: "locale must be one of en, fr, es, pt, de, ar" }]);
    }
    expect((await t.db.dashboardUser.findUniqueOrThrow({ where: { id: english.userId } })).noticeLocale).toBe("en");
    expect((await t.db.dashboardUser.findUniqueOrThrow({ where: { id: french.userId } })).noticeLocale).toBe("fr");
  });

  it("writes the merchant's notices in each user's language", async () => {
    for (const user of [french, english]) {
      expect((await user.patch(`/dashboard/api/users/${user.userId}/email-notices`, { enabled: true })).status).toBe(200);
    }
    const init = await t.post("/v1/transaction", initializeBody({ customer: { email: "acheteur@example.com" } }), {
      authorization: `Bearer ${keys.testPublicKey}`,
    });
    expect(init.status).toBe(201);
    const id: string = init.body.data.id;
    const secret = { authorization: `Bearer ${keys.testSecretKey}` };
    expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, secret)).status).toBe(200);
    expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret)).status).toBe(200);
    await t.gateway.email.follow();
    await t.gateway.email.deliver();
    const reference: string = init.body.data.reference;
    const inFrench = inbox.to(french.email);
    expect(inFrench.map((m) => m.subject)).toEqual([`Maison Leroy\u00a0: paiement reçu (${reference})`]);
    expect(inFrench[0]?.text).toContain("de acheteur@example.com a été reçu et confirmé.");
    expect(inFrench[0]?.html).toContain('<html lang="fr" dir="ltr">');
    expect(inbox.to(english.email).map((m) => m.subject)).toEqual([`Maison Leroy: payment received (${reference})`]);
  });

  it("tells an unmatched receipt of an own TRON address to the users who asked, once, in their language", async () => {
    const now = new Date();
    const receipt = {
      id: `ur_${randomUUID()}`,
      merchantId: keys.id,
      isLive: false,
      network: "tron",
      address: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
      currencyId: 3,
      amount: new Decimal("25.000417"),
      key: `${"cd".repeat(32)}:0`,
      txHash: "cd".repeat(32),
      logIndex: 0,
      blockHeight: 10,
      confirmations: 1,
      seenAt: now,
      state: "open" as const,
      transactionId: null,
      refundTxHash: null,
      updatedAt: now,
    };
    // As the TRON watcher records it (src/core/own-addresses/matching.ts): the receipt and its event, once.
    const store = ownAddressStore(t.db);
    expect(await store.recordUnmatched(receipt, now, (r) => unmatchedEvent(r, now))).not.toBeNull();
    expect(await store.recordUnmatched({ ...receipt, id: `ur_${randomUUID()}` }, now, (r) => unmatchedEvent(r, now))).toBeNull();
    await t.gateway.email.follow();
    await t.gateway.email.follow();
    await t.gateway.email.deliver();
    const inFrench = inbox.to(french.email).filter((m) => m.subject?.includes("virement"));
    expect(inFrench.map((m) => m.subject)).toEqual(["Maison Leroy\u00a0: un virement ne correspond à aucun paiement"]);
    expect(inFrench[0]?.text).toContain(
      "25.000417 USDT est arrivé sur votre propre adresse TJRabPrwbZy45sbavfcjinPJC18kjpRTv8 sans correspondre à aucun paiement ouvert.",
    );
    expect(inFrench[0]?.text).toContain(receipt.id);
    expect(inFrench[0]?.text).toContain("cd".repeat(32));
    const inEnglish = inbox.to(english.email).filter((m) => m.subject?.includes("transfer"));
    expect(inEnglish.map((m) => m.subject)).toEqual(["Maison Leroy: a transfer matched no payment"]);
    expect(inEnglish[0]?.text).toContain(
      "25.000417 USDT arrived on your own address TJRabPrwbZy45sbavfcjinPJC18kjpRTv8 but matched no open payment.",
    );
    const rows = await t.db.emailMessage.findMany({ where: { kind: "notice_unmatched_receipt" }, orderBy: { recipient: "asc" } });
    expect(rows.map((r) => [r.recipient, r.locale, r.state])).toEqual(
      [
        [english.email, "en", "SENT"],
        [french.email, "fr", "SENT"],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });
});

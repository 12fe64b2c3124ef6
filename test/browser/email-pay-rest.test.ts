// @module-tag browser
// Issue 44: the "pay the rest" e-mail's link, followed in Chromium, opens the transaction's checkout
// where it stands (part paid, the rest to send), at 375 px, without script errors.
import { afterAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { startSmtpInbox } from "../support/smtp.ts";
import { checkoutFixture, problemsOf, text, WAIT } from "./support.ts";

const inbox = await startSmtpInbox();
const f = checkoutFixture({
  merchant: "Rest & Co",
  gateway: { env: { PAYGATE_SMTP_URL: inbox.url } },
  // Test mode mails only the merchant's users: the customer is one.
  setUp: async (t, keys) => {
    await t.gateway.operator.createDashboardUser({
      merchantId: keys.id,
      email: "ada@example.com",
      role: "viewer",
      password: "correct horse battery staple",
    });
  },
});

afterAll(async () => {
  await inbox.close();
});

describe("the pay-the-rest e-mail in a browser", () => {
  it("links to the checkout, which shows what is left to send", async () => {
    const { id, checkoutUrl } = await f.initialize();
    const pay = await f.t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, { authorization: `Bearer ${f.keys.testSecretKey}` });
    expect(pay.status).toBe(200);
    const due = new Decimal((await f.retrieve(id)).payment_amount);
    await f.testHelper(id, "payment", { amount: "0.001" });
    await f.t.gateway.email.follow();
    expect(await f.t.gateway.email.deliver()).toMatchObject({ sent: 1 });
    const [mail] = inbox.to("ada@example.com");
    const link = /Pay the rest: (\S+)/.exec(mail?.text ?? "")?.[1];
    expect(link).toBe(checkoutUrl);
    const page = await f.open(link ?? "");
    await page.locator("#pay-status .status-title", { hasText: "Part of the payment has arrived" }).waitFor(WAIT);
    const owed = due.minus("0.001").toFixed();
    expect(await text(page, "#pay-amount")).toBe(`${owed} LTC`);
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });
});

// @module-tag browser
// The dashboard's refunds in Chromium (issue 26): an owner opens a paid test transaction, uses the
// keyboard to open the Refund form, makes a custom refund to the refund address, sees its state, the
// payment URI and its QR, and cancels it; a payment that arrived as a chain output gives a PSBT that
// downloads as refund-<id>.psbt, and Mark paid takes a hash; a refund to no address shows the claim
// link to copy (a double click on Create refund makes one, sent with the form's Idempotency-Key), and a
// change made over the API shows without a reload (polled, in a live region); a
// viewer sees no Refund action; the list's refunds filter and Refunded column; an EVM refund (the refund
// read answered by a route interception) shows its unsigned transaction and gas, and a pending refund is
// asked for again after 4 s, backing off to 30 s, never while the tab is hidden (the page's clock is the
// test's). axe-core at 1200 px and 375 px, with no sideways scroll.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { accessibilityViolations, expectNoSidewaysScroll } from "../../support/browser.ts";
import { initializeBody } from "../../support/builders.ts";
import { dashboardBrowserFixture, signedInAs, type DashboardClient } from "../../support/dashboard.ts";

const d = dashboardBrowserFixture({ merchant: () => ({ name: "Browser Refunds" }) });

const LTC_TEST_ADDRESS = "tltc1q33andx3shykl4uhyerlfhkl7u64mwvz9sa0pdn";
const DESKTOP = { width: 1200, height: 900 };
const PHONE = { width: 375, height: 800 };
/** The page clock of the polling test: paused, so page time moves only when the test moves it. */
const CLOCK_START = Date.UTC(2026, 0, 1);

const browse = (client: DashboardClient, viewport = DESKTOP) => d.browse(client, { viewport, acceptDownloads: true });

/** A test-mode LTC transaction the test helper paid in full. */
async function paid(refundAddress?: string, k = d.merchant): Promise<{ id: string; reference: string }> {
  const init = await d.t.post("/v1/transaction", initializeBody({ amount: "100" }), { authorization: `Bearer ${k.testPublicKey}` });
  expect(init.status).toBe(201);
  const { id, reference } = init.body.data as { id: string; reference: string };
  const secret = { authorization: `Bearer ${k.testSecretKey}` };
  expect(
    (await d.t.post(`/v1/transaction/${id}/pay`, { currency_id: "7", ...(refundAddress ? { refund_address: refundAddress } : {}) }, secret)).status,
  ).toBe(200);
  expect((await d.t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret)).status).toBe(200);
  return { id, reference };
}

describe("refunds on the transaction page", () => {
  it("makes a refund with the keyboard, shows its URI and QR, and cancels it (desktop)", async () => {
    const tx = await paid(LTC_TEST_ADDRESS);
    const owner = await signedInAs(d.t, d.merchant.id, "owner");
    const { context, page } = await browse(owner);
    await page.goto(`${d.t.url}/dashboard/transaction?id=${tx.id}`);
    const section = page.locator("section#refunds");
    await expect.poll(() => section.textContent()).toContain("Left to refund:");
    expect(await accessibilityViolations(page)).toEqual([]);

    const open = page.getByRole("button", { name: "Refund", exact: true });
    await open.focus();
    await page.keyboard.press("Enter");
    expect(await open.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => section.textContent()).toContain(`Destination: ${LTC_TEST_ADDRESS}`);
    await page.getByLabel("A custom amount in LTC").check();
    await page.getByLabel("Amount to refund").fill("0.001");
    await page.getByLabel("Today's rate").check();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByLabel("Amount to refund").press("Enter");

    const panel = section.locator("article.refund").first();
    await expect.poll(() => panel.locator("h3").textContent()).toBe("Refund of 0.001 LTC");
    await expect.poll(() => panel.locator(".refund-state").textContent()).toBe("Pending: waiting for the payment");
    // The test helper's payment has no output to spend: no PSBT here, the URI and QR to pay from elsewhere.
    await expect.poll(() => panel.locator("a.refund-uri").count()).toBe(1);
    expect(await panel.locator("a.refund-uri").getAttribute("href")).toContain(LTC_TEST_ADDRESS);
    expect(await panel.locator("img.refund-qr").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    expect(await panel.getByRole("link", { name: "Download the PSBT" }).count()).toBe(0);
    expect(await panel.textContent()).toContain("No transaction to sign was built");
    const refund = await d.t.db.refund.findFirstOrThrow({ where: { transactionId: tx.id } });
    expect(refund.state).toBe("pending");
    expect(refund.valuation).toBe("current_rate");
    expect(await accessibilityViolations(page)).toEqual([]);

    await panel.getByRole("button", { name: "Cancel refund" }).click();
    await expect.poll(() => section.locator("article.refund .refund-state").first().textContent()).toBe("Canceled");
    expect((await d.t.db.refund.findUniqueOrThrow({ where: { id: refund.id } })).state).toBe("canceled");
    await context.close();
  });

  it("offers the PSBT of a refund whose payment arrived as a chain output, as a refund-<id>.psbt download", async () => {
    const tx = await paid(LTC_TEST_ADDRESS);
    const hash = "ef".repeat(32);
    await d.t.db.paymentReceipt.updateMany({ where: { transactionId: tx.id }, data: { key: `${hash}:1`, txHash: hash, source: "chain" } });
    const owner = await signedInAs(d.t, d.merchant.id, "owner");
    const { context, page } = await browse(owner);
    await page.goto(`${d.t.url}/dashboard/transaction?id=${tx.id}`);
    const section = page.locator("section#refunds");
    await section.getByRole("button", { name: "Refund", exact: true }).click();
    await page.getByLabel("Fee rate (sat/vB, optional)").fill("2");
    await page.getByLabel("Take the network fee from the refund").check();
    await section.getByRole("button", { name: "Create refund" }).click();
    const link = section.getByRole("link", { name: "Download the PSBT" });
    await expect.poll(() => link.count()).toBe(1);
    const refund = await d.t.db.refund.findFirstOrThrow({ where: { transactionId: tx.id } });
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe(`refund-${refund.id}.psbt`);
    const bytes = await readFile((await download.path()) as string);
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("psbt\xff");
    expect(await section.textContent()).toContain("Network fee");
    expect(await accessibilityViolations(page)).toEqual([]);

    // Paid from elsewhere: the merchant gives the hash; the refund waits for the chain to confirm it.
    const panel = section.locator("article.refund").first();
    await panel.getByLabel("Paid it yourself? Transaction hash").fill("12".repeat(32));
    await panel.getByRole("button", { name: "Mark paid" }).click();
    await expect
      .poll(() => section.locator("article.refund .refund-state").first().textContent())
      .toBe("Pending: checking your transaction hash on the chain");
    expect((await d.t.db.refund.findUniqueOrThrow({ where: { id: refund.id } })).txHash).toBe("12".repeat(32));
    await context.close();
  });

  it("shows the claim link when there is no refund address, and a change made elsewhere without a reload (375 px)", async () => {
    const tx = await paid();
    const owner = await signedInAs(d.t, d.merchant.id, "owner");
    const { context, page } = await browse(owner, PHONE);
    await page.goto(`${d.t.url}/dashboard/transaction?id=${tx.id}`);
    const section = page.locator("section#refunds");
    await section.getByRole("button", { name: "Refund", exact: true }).click();
    await expect.poll(() => section.textContent()).toContain("the customer gets a claim link");
    expect(await accessibilityViolations(page)).toEqual([]);
    await expectNoSidewaysScroll(page, "no sideways scroll");
    const sentKeys: (string | undefined)[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && request.url().includes(`/transactions/${tx.id}/refunds`))
        sentKeys.push(request.headers()["idempotency-key"]);
    });
    // A double click makes one refund: the button is disabled while the first is sent, and the form's key goes with it.
    await section.getByRole("button", { name: "Create refund" }).dblclick();
    const claim = section.getByLabel("Claim link");
    await expect.poll(() => claim.count()).toBe(1);
    expect(sentKeys.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sentKeys).size).toBe(1);
    expect(sentKeys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(await d.t.db.refund.count({ where: { transactionId: tx.id } })).toBe(1);
    expect(await section.locator(".alert").count()).toBe(0);
    expect(await claim.inputValue()).toMatch(new RegExp(`^${d.t.url}/refund/`));
    await expect.poll(() => section.locator(".refund-state").first().textContent()).toBe("Pending: waiting for the customer to claim it");
    expect(await accessibilityViolations(page)).toEqual([]);
    await expectNoSidewaysScroll(page, "no sideways scroll");

    // Cancelled over the API: the page, still open, says so by itself and announces it.
    const refund = await d.t.db.refund.findFirstOrThrow({ where: { transactionId: tx.id } });
    const res = await d.t.post(`/v1/refunds/${refund.id}/cancel`, {}, { authorization: `Bearer ${d.merchant.testSecretKey}` });
    expect(res.status).toBe(200);
    await expect.poll(() => section.locator(".refund-state").first().textContent(), { timeout: 15_000 }).toBe("Canceled");
    expect(await section.locator(".refund-state").first().getAttribute("aria-live")).toBe("polite");
    await context.close();
  });

  it("shows an EVM refund's unsigned transaction and the gas it needs, asking again less and less often and never while hidden", async () => {
    const tx = await paid(LTC_TEST_ADDRESS);
    const owner = await signedInAs(d.t, d.merchant.id, "owner");
    const made = await owner.post(`/dashboard/api/transactions/${tx.id}/refunds`, { amount_kind: "custom", amount: "0.001", amount_currency: "LTC" });
    expect(made.status).toBe(201);
    // The refund read as the route answers it, with what the EVM refund rails build (src/rails/refunds/evm.ts) for
    // a USDT refund on Ethereum: the token's transfer from the paid address, and the ETH its gas needs.
    const read = await owner.get(`/dashboard/api/refunds/${made.body.data.id}`);
    const customer = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
    const evm = {
      from: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
      to: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
      value: "0",
      data: `0xa9059cbb000000000000000000000000${customer.slice(2).toLowerCase()}0000000000000000000000000000000000000000000000000000000000989680`,
      chainId: 1,
      gas: "52314",
      type: 2,
      gasPrice: "15000000000",
      maxFeePerGas: "20000000000",
      maxPriorityFeePerGas: "1000000000",
    };
    const usdtRefund = {
      ...read.body.data,
      currency: "USDT",
      network: "ethereum",
      amount: "10",
      amount_to_customer: "10",
      network_fee: "0.001046",
      destination: customer,
      payment: {
        uri: `ethereum:${evm.to}@1/transfer?address=${customer}&uint256=10000000`,
        qr: read.body.data.payment.qr,
        psbt: null,
        network_fee: "0.001046",
        evm_transaction: evm,
        gas_needed: { coin: "ETH", amount: "0.001046" },
        key_origin_missing: null,
        problem: null,
      },
    };
    const { context, page } = await browse(owner, PHONE);
    // The page's clock is the test's: each ask's and each answer's time is read in the page, and once the
    // clock is paused (installed, it runs with real time until then) time moves only when told.
    await page.clock.install({ time: CLOCK_START });
    await page.addInitScript(`{
      const asks = (window.__refundAsks = []);
      const answers = (window.__refundAnswers = []);
      const fetch = window.fetch.bind(window);
      window.fetch = (input, init) => {
        if (!String(input).includes("/dashboard/api/refunds/")) return fetch(input, init);
        asks.push(Date.now());
        // Counted once its body is in: the page sets its next timer only then, so the next ask is due
        // that long after the answer, however long the answer took in real time.
        return fetch(input, init).then(async (response) => {
          await response.clone().arrayBuffer();
          answers.push(Date.now());
          return response;
        });
      };
    }`);
    await page.route(
      (url) => url.pathname === `/dashboard/api/refunds/${usdtRefund.id}`,
      (route) => route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ status: "success", data: usdtRefund }) }),
    );
    await page.goto(`${d.t.url}/dashboard/transaction?id=${tx.id}`);
    const asks = () => page.evaluate<number[]>("window.__refundAsks");
    const answers = () => page.evaluate<number[]>("window.__refundAnswers");
    /** Waits, without moving the clock, until every ask is answered. */
    const answered = async () => {
      const asked = (await asks()).length;
      await expect.poll(async () => (await answers()).length, { timeout: 15_000 }).toBe(asked);
    };
    // The first ask answered, the clock is paused a moment ahead of the page's time (read again should
    // that moment have passed before the browser takes the call, as under load).
    await expect.poll(async () => (await asks()).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    await answered();
    for (let attempt = 1; ; attempt++) {
      try {
        await page.clock.pauseAt((await page.evaluate<number>("Date.now()")) + 250);
        break;
      } catch (error) {
        if (attempt === 5 || !String(error).includes("to the past")) throw error;
      }
    }
    const panel = page.locator("section#refunds article.refund").first();
    await expect.poll(() => panel.locator(".refund-payment").count(), { timeout: 15_000 }).toBe(1);
    const shown = async () =>
      Object.fromEntries(
        await panel.locator(".refund-payment dl dt").evaluateAll((terms) => terms.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
      );
    expect(await shown()).toEqual({
      From: evm.from,
      To: evm.to,
      "Value (wei)": "0",
      Data: evm.data,
      "Chain id": "1",
      Gas: "52314",
      Type: "2 (EIP-1559)",
      "Max fee per gas (wei)": "20000000000",
      "Max priority fee per gas (wei)": "1000000000",
      "Gas price (wei, legacy)": "15000000000",
    });
    const pay = (await panel.locator(".refund-payment").textContent()) ?? "";
    expect(pay).toContain("The unsigned transaction to sign with the key of the paid address:");
    expect(pay).toContain("The paying address needs 0.001046 ETH for gas.");
    expect(pay).not.toContain("No transaction to sign was built");
    expect(await panel.getByRole("link", { name: "Download the PSBT" }).count()).toBe(0);
    expect(await panel.locator("a.refund-uri").getAttribute("href")).toBe(usdtRefund.payment.uri);
    expect(await panel.locator("h3").first().textContent()).toBe("Refund of 10 USDT");

    /** Moves the page's clock on in small steps until the refund is asked for again (or `limit` ms pass); that ask's page time, once answered. */
    const nextAsk = async (limit: number): Promise<number | null> => {
      await answered();
      const before = (await asks()).length;
      for (let moved = 0; moved < limit; moved += 250) {
        await page.clock.runFor(250);
        const now = await asks();
        if (now.length > before) {
          // The answer in, then a round trip to the page so it is read and the next timer set before
          // time moves on (the 500 ms allowed below covers the rest).
          await answered();
          await panel.locator(".refund-state").textContent();
          return now.at(-1) ?? null;
        }
      }
      return null;
    };
    /** The page time of the last answer: the page waits from there. */
    const lastAnswer = async () => (await answers()).at(-1) ?? 0;
    let previous = await lastAnswer();
    const gaps: number[] = [];
    for (let i = 0; i < 7; i++) {
      const at = await nextAsk(40_000);
      if (at === null) throw new Error(`no ask after ${gaps.length} asks`);
      gaps.push(at - previous);
      previous = await lastAnswer();
    }
    // From each answer to the next ask: 4 s, half as long again each time nothing changed, then 30 s at most.
    [4000, 6000, 9000, 13_500, 20_250, 30_000, 30_000].forEach((expected, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(expected);
      expect(gaps[i]).toBeLessThanOrEqual(expected + 500);
    });

    // A hidden tab is not asked for, however long; shown again, it asks at once, then after 4 s.
    const setHidden = (hidden: boolean) =>
      page.evaluate(`{
        Object.defineProperty(document, "visibilityState", { configurable: true, get: () => ${hidden ? '"hidden"' : '"visible"'} });
        document.dispatchEvent(new Event("visibilitychange"));
      }`);
    await setHidden(true);
    const whileHidden = (await asks()).length;
    await page.clock.runFor(5 * 60_000);
    expect(await nextAsk(2000)).toBeNull();
    expect((await asks()).length).toBe(whileHidden);
    await setHidden(false);
    await expect.poll(async () => (await asks()).length, { timeout: 15_000 }).toBe(whileHidden + 1);
    await answered();
    const shownAt = await lastAnswer();
    const again = await nextAsk(10_000);
    expect(again === null ? null : again - shownAt).toBeGreaterThanOrEqual(4000);
    expect(again === null ? null : again - shownAt).toBeLessThanOrEqual(4500);

    // Checked with the clock running again (axe waits on timers).
    await page.clock.resume();
    expect(await accessibilityViolations(page)).toEqual([]);
    await expectNoSidewaysScroll(page, "no sideways scroll");
    await context.close();
  });

  it("gives a viewer no Refund action, and the list filters by refunds with a Refunded column (375 px)", async () => {
    // A merchant of its own: the list shows its transactions only.
    const lists = await d.t.merchant({ name: "Browser Refund Lists" });
    const tx = await paid(LTC_TEST_ADDRESS, lists);
    await paid(LTC_TEST_ADDRESS, lists);
    const owner = await signedInAs(d.t, lists.id, "owner");
    expect(
      (await owner.post(`/dashboard/api/transactions/${tx.id}/refunds`, { amount_kind: "custom", amount: "0.002", amount_currency: "LTC" })).status,
    ).toBe(201);
    const viewer = await signedInAs(d.t, lists.id, "viewer");
    const { context, page } = await browse(viewer, PHONE);
    await page.goto(`${d.t.url}/dashboard/transaction?id=${tx.id}`);
    const section = page.locator("section#refunds");
    await expect.poll(() => section.locator("article.refund").count()).toBe(1);
    expect(await section.getByRole("button", { name: "Refund", exact: true }).count()).toBe(0);
    expect(await section.getByRole("button", { name: "Cancel refund" }).count()).toBe(0);

    await page.goto(`${d.t.url}/dashboard/transactions`);
    await page.getByLabel("Refunds").selectOption("pending");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => page.url()).toContain("refunds=pending");
    const rows = page.locator("table.transactions tbody tr");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().locator("td[data-label=Refunded]").textContent()).toBe("0.002 LTC (1 pending)");
    expect(await accessibilityViolations(page)).toEqual([]);
    await expectNoSidewaysScroll(page, "no sideways scroll");
    await context.close();
  });
});

// The refund claim link (issue 26): GET /refund/:token shows the refund and a form, POST takes the
// customer's address once, checked for the coin and network; a link used twice, expired, closed or
// guessed is refused with a page that says so, and nothing changes.
import { describe, expect, it } from "vitest";
import { initializeBody } from "../support/builders.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  ({ t } = started);
  keys = await t.merchant({ name: "Claim & Co" });
});

const LTC_TEST_ADDRESS = "tltc1qqmz9s2kvahn0c3esvssakmkpqq8pmyz96wsjwl";
const LTC_MAINNET_ADDRESS = "ltc1qqurswpc8qurswpc8qurswpc8qurswpc8p4r4uu";
const BTC_TEST_ADDRESS = "tb1qt5ywkynntpg9fdqawk5p2gjg2cympf3hatmav2";

async function refundWithLink(): Promise<{ id: string; url: string; path: string; transactionId: string }> {
  const init = await t.post("/v1/transaction", initializeBody(), { authorization: `Bearer ${keys.testPublicKey}` });
  const id: string = init.body.data.id;
  const auth = { authorization: `Bearer ${keys.testSecretKey}` };
  expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, auth)).status).toBe(200);
  expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, auth)).status).toBe(200);
  const made = await t.post(`/v1/transaction/${id}/refunds`, { amount_kind: "full" }, auth);
  expect(made.status).toBe(201);
  const url: string = made.body.data.refund_url;
  return { id: made.body.data.id, url, path: new URL(url).pathname, transactionId: id };
}

const page = async (path: string) => {
  const res = await fetch(`${t.url}${path}`);
  return { status: res.status, headers: res.headers, html: await res.text() };
};

const submit = async (path: string, address: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ address }).toString(),
  });
  return { status: res.status, html: await res.text() };
};

const rowOf = (id: string) => t.db.refund.findUniqueOrThrow({ where: { id } });

async function unchanged(id: string, action: () => Promise<{ status: number; html: string }>, status: number, text: string | RegExp) {
  const before = JSON.stringify(await rowOf(id));
  const res = await action();
  expect(res.status).toBe(status);
  if (typeof text === "string") expect(res.html).toContain(text);
  else expect(res.html).toMatch(text);
  expect(JSON.stringify(await rowOf(id))).toBe(before);
}

describe("the claim link", () => {
  it("shows the refund with a labelled form, the test-mode banner and the headers of a credential page", async () => {
    const r = await refundWithLink();
    const res = await page(r.path);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("content-security-policy")).toContain("form-action 'self'");
    expect(res.html).toContain('<html lang="en">');
    expect(res.html).toContain("Claim &amp; Co");
    expect(res.html).toContain("Test mode.");
    expect(res.html).toContain('<label for="address">Your LTC address on');
    expect(res.html).toContain('href="/refund/assets/claim.css"');
    expect(res.html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"]*\.(css|js)/);
    const css = await fetch(`${t.url}/refund/assets/claim.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
  });

  it("refuses an invalid and an other-network address with the error announced, then takes a good one once", async () => {
    const r = await refundWithLink();
    await unchanged(r.id, () => submit(r.path, ""), 400, 'role="alert">Enter the LTC address to receive the refund');
    await unchanged(r.id, () => submit(r.path, "not an address"), 400, /role="alert">address is not a valid LTC address on litecoin for test mode/);
    await unchanged(r.id, () => submit(r.path, LTC_MAINNET_ADDRESS), 400, 'aria-invalid="true"');
    await unchanged(r.id, () => submit(r.path, BTC_TEST_ADDRESS), 400, /not a valid LTC address/);
    // From another site: refused before anything is read.
    await unchanged(
      r.id,
      () => submit(r.path, LTC_TEST_ADDRESS, { origin: "https://evil.example" }),
      403,
      "This form can only be sent from this refund page.",
    );
    await unchanged(
      r.id,
      () => submit(r.path, LTC_TEST_ADDRESS, { origin: "null", "sec-fetch-site": "cross-site" }),
      403,
      "This form can only be sent from this refund page.",
    );

    const ok = await submit(r.path, ` ${LTC_TEST_ADDRESS} `, { origin: t.url });
    expect(ok.status).toBe(200);
    expect(ok.html).toContain(LTC_TEST_ADDRESS);
    const row = await rowOf(r.id);
    expect(row.destination).toBe(LTC_TEST_ADDRESS);
    expect(row.claimedAt).not.toBeNull();
    const shown = await fetch(`${t.url}/v1/refunds/${r.id}`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    const body = (await shown.json()) as any;
    expect(body.data).toMatchObject({ destination: LTC_TEST_ADDRESS, destination_source: "claim" });
    expect(body.data.payment.uri).toContain(LTC_TEST_ADDRESS);

    // Used twice: refused, and the address stays.
    await unchanged(r.id, () => submit(r.path, "tltc1q33andx3shykl4uhyerlfhkl7u64mwvz9sa0pdn"), 410, "This refund link was already used");
    await unchanged(r.id, () => page(r.path), 410, "This refund link was already used");
  });

  it("refuses a guessed, an expired and a canceled refund's link", async () => {
    const guessed = await page(`/refund/${"A".repeat(32)}`);
    expect(guessed.status).toBe(404);
    expect(guessed.html).toContain("This refund link is not valid; ask the merchant for a new one");
    expect((await page("/refund/short")).status).toBe(404);
    expect((await submit(`/refund/${"B".repeat(32)}`, LTC_TEST_ADDRESS)).status).toBe(404);

    const expired = await refundWithLink();
    await t.db.refund.update({ where: { id: expired.id }, data: { claimExpiresAt: new Date(Date.now() - 1000) } });
    await unchanged(expired.id, () => page(expired.path), 410, "This refund link has expired; ask the merchant for a new one");
    await unchanged(expired.id, () => submit(expired.path, LTC_TEST_ADDRESS), 410, "This refund link has expired");

    const canceled = await refundWithLink();
    const cancel = await t.post(`/v1/refunds/${canceled.id}/cancel`, {}, { authorization: `Bearer ${keys.testSecretKey}` });
    expect(cancel.status).toBe(200);
    await unchanged(canceled.id, () => submit(canceled.path, LTC_TEST_ADDRESS), 410, "This refund was canceled or already paid");
  });
});

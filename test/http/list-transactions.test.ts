// GET /v1/transactions (issue 13): the secret key's merchant's transactions of its mode, newest first,
// in pages that stay stable while transactions are made, with the dashboard's filters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

type Keys = Awaited<ReturnType<TestGateway["merchant"]>>;

const list = async (query: string, key?: string) => {
  const res = await fetch(`${t.url}/v1/transactions${query}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
};

const init = async (publicKey: string, body: { email?: string; currency?: string; amount?: string } = {}) => {
  const res = await t.post(
    "/v1/transaction",
    { customer: { email: body.email ?? "ada@example.com" }, currency: body.currency ?? "USD", amount: body.amount ?? "10" },
    { authorization: `Bearer ${publicKey}` },
  );
  expect(res.status).toBe(201);
  return res.body.data as { id: string; reference: string; client_secret: string };
};

const ids = (body: { data: { id: string }[] }) => body.data.map((d) => d.id);

describe("GET /v1/transactions: pages", () => {
  it("pages newest first with has_more, without duplicates or gaps while transactions are made between pages", async () => {
    const keys = await t.merchant({ name: "Pages" });
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await init(keys.testPublicKey)).id);
    const expected = [...made].reverse();

    const first = await list("?limit=3", keys.testSecretKey);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "success", has_more: true, meta: {} });
    expect(ids(first.body)).toEqual(expected.slice(0, 3));

    await init(keys.testPublicKey);
    await init(keys.testPublicKey);
    const second = await list(`?limit=3&starting_after=${first.body.data[2].id}`, keys.testSecretKey);
    expect(second.body.has_more).toBe(true);
    expect(ids(second.body)).toEqual(expected.slice(3, 6));

    await init(keys.testPublicKey);
    const third = await list(`?limit=3&starting_after=${second.body.data[2].id}`, keys.testSecretKey);
    expect(third.body.has_more).toBe(false);
    expect(ids(third.body)).toEqual(expected.slice(6));

    // The default page is 10; the three made meanwhile come first.
    const all = await list("", keys.testSecretKey);
    expect(all.body.data).toHaveLength(10);
    expect(all.body.has_more).toBe(false);
    expect(ids(all.body).slice(3)).toEqual(expected);
  });

  it("orders transactions made in the same millisecond by id, and pages through them", async () => {
    const keys = await t.merchant({ name: "Same instant" });
    const made: string[] = [];
    for (let i = 0; i < 4; i++) made.push((await init(keys.testPublicKey)).id);
    const at = new Date("2026-11-01T10:00:00.000Z");
    for (const id of made) await t.db.transaction.update({ where: { id }, data: { createdAt: at } });
    const sorted = [...made].sort().reverse();
    const seen: string[] = [];
    let after = "";
    for (;;) {
      const page = await list(`?limit=1${after}`, keys.testSecretKey);
      seen.push(...ids(page.body));
      if (!page.body.has_more) break;
      after = `&starting_after=${page.body.data[0].id}`;
    }
    expect(seen).toEqual(sorted);
  });

  it("shows each transaction as GET /v1/transaction/:id shows it to the secret key", async () => {
    const keys = await t.merchant({ name: "Shape" });
    const { id } = await init(keys.testPublicKey);
    await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
    const one = await fetch(`${t.url}/v1/transaction/${id}`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    const page = await list("", keys.testSecretKey);
    expect(page.body.data).toEqual([((await one.json()) as any).data]);
    expect(page.body.data[0]).toMatchObject({ status: "PENDING", payment_currency: 4, initialized_currency: "USD" });
    expect(page.body.data[0].client_secret).toMatch(/_secret_/);
  });

  it("shows only the key's merchant and mode", async () => {
    const keys = await t.merchant({ name: "Mine", kyb: "VERIFIED" });
    const other = await t.merchant({ name: "Theirs" });
    const mine = await init(keys.testPublicKey);
    await init(other.testPublicKey);
    const live = await init(keys.livePublicKey);
    expect(ids((await list("", keys.testSecretKey)).body)).toEqual([mine.id]);
    expect(ids((await list("", keys.liveSecretKey)).body)).toEqual([live.id]);
    // Another merchant's or mode's id is no cursor here, and no search hit.
    const cursor = await list(`?starting_after=${live.id}`, keys.testSecretKey);
    expect(cursor.status).toBe(400);
    expect(cursor.body).toMatchObject({ status: "error", code: "validation_error", reason: "unknown_cursor" });
    expect((await list(`?q=${live.id}`, keys.testSecretKey)).body.data).toEqual([]);
  });

  it("answers an empty page for a merchant without transactions", async () => {
    const keys = await t.merchant({ name: "Empty" });
    const page = await list("", keys.testSecretKey);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ status: "success", data: [], has_more: false, meta: {} });
  });
});

describe("GET /v1/transactions: filters", () => {
  let keys: Keys;
  const tx: Record<string, { id: string; reference: string }> = {};
  beforeAll(async () => {
    keys = await t.merchant({ name: "Filters" });
    const auth = { authorization: `Bearer ${keys.testSecretKey}` };
    tx.initiated = await init(keys.testPublicKey, { email: "Initiated@Example.com" });
    tx.pendingBtc = await init(keys.testPublicKey, { email: "a_b@example.com" });
    await t.post(`/v1/transaction/${tx.pendingBtc.id}/pay`, { currency_id: "4" }, auth);
    tx.paidEth = await init(keys.testPublicKey, { email: "axb@example.com", currency: "NGN", amount: "5000" });
    await t.post(`/v1/transaction/${tx.paidEth.id}/pay`, { currency_id: "6" }, auth);
    const paid = await t.post(`/v1/test_helpers/transaction/${tx.paidEth.id}/payment`, {}, auth);
    expect(paid.body.data.status).toBe("SUCCESSFUL");
    tx.abandoned = await init(keys.testPublicKey, { email: "gone@example.com" });
    const expired = await t.post(`/v1/test_helpers/transaction/${tx.abandoned.id}/expire`, {}, auth);
    expect(expired.body.data.status).toBe("ABANDONED");
    const at = (id: string, iso: string) => t.db.transaction.update({ where: { id }, data: { createdAt: new Date(iso) } });
    await at(tx.initiated.id, "2026-10-01T00:00:00Z");
    await at(tx.pendingBtc.id, "2026-10-15T00:00:00Z");
    await at(tx.paidEth.id, "2026-11-01T00:00:00Z");
    await at(tx.abandoned.id, "2026-11-10T12:00:00Z");
  });

  const found = async (query: string) => {
    const res = await list(query, keys.testSecretKey);
    expect(res.status).toBe(200);
    return ids(res.body);
  };

  it("filters by status, in any case", async () => {
    expect(await found("?status=INITIATED")).toEqual([tx.initiated?.id]);
    expect(await found("?status=pending")).toEqual([tx.pendingBtc?.id]);
    expect(await found("?status=SUCCESSFUL")).toEqual([tx.paidEth?.id]);
    expect(await found("?status=ABANDONED")).toEqual([tx.abandoned?.id]);
  });

  it("filters by fiat currency and by the coin chosen, as an id or a slug", async () => {
    expect(await found("?currency=NGN")).toEqual([tx.paidEth?.id]);
    expect(await found("?currency=usd")).toEqual([tx.abandoned?.id, tx.pendingBtc?.id, tx.initiated?.id]);
    expect(await found("?payment_currency=4")).toEqual([tx.pendingBtc?.id]);
    expect(await found("?payment_currency=eth")).toEqual([tx.paidEth?.id]);
    expect(await found("?payment_currency=LTC")).toEqual([]);
    expect(await found("?currency=NGN&payment_currency=BTC")).toEqual([]);
  });

  it("filters by creation time: gte inclusive, lt exclusive", async () => {
    expect(await found("?created[gte]=2026-10-15T00:00:00Z&created[lt]=2026-11-10T12:00:00Z")).toEqual([tx.paidEth?.id, tx.pendingBtc?.id]);
    expect(await found(`?${encodeURIComponent("created[gte]")}=2026-11-01T01:00:00%2B01:00`)).toEqual([tx.abandoned?.id, tx.paidEth?.id]);
    expect(await found("?created[lt]=2026-10-01T00:00:00.001Z")).toEqual([tx.initiated?.id]);
  });

  it("searches by exact reference, exact id, or customer e-mail in any case (no wildcards)", async () => {
    expect(await found(`?q=${tx.paidEth?.reference}`)).toEqual([tx.paidEth?.id]);
    expect(await found(`?q=${tx.pendingBtc?.reference.slice(0, -1)}`)).toEqual([]);
    expect(await found(`?q=${tx.abandoned?.id.toUpperCase()}`)).toEqual([tx.abandoned?.id]);
    expect(await found("?q=initiated%40example.COM")).toEqual([tx.initiated?.id]);
    expect(await found("?q=A_B%40example.com")).toEqual([tx.pendingBtc?.id]);
    expect(await found("?q=%25%40example.com")).toEqual([]);
    expect(await found("?q=a%5C_b%40example.com")).toEqual([]);
    expect(await found("?q=example.com")).toEqual([]);
  });

  it("combines filters with pages", async () => {
    const first = await list("?currency=USD&limit=2", keys.testSecretKey);
    expect(first.body.has_more).toBe(true);
    expect(ids(first.body)).toEqual([tx.abandoned?.id, tx.pendingBtc?.id]);
    const next = await list(`?currency=USD&limit=2&starting_after=${tx.pendingBtc?.id}`, keys.testSecretKey);
    expect(next.body).toMatchObject({ has_more: false });
    expect(ids(next.body)).toEqual([tx.initiated?.id]);
  });
});

describe("GET /v1/transactions: refusals", () => {
  let keys: Keys;
  beforeAll(async () => {
    keys = await t.merchant({ name: "Refusals" });
  });

  it("refuses every credential but a secret key with 401", async () => {
    const { client_secret } = await init(keys.testPublicKey);
    for (const [key, message] of [
      [keys.testPublicKey, "Invalid Secret Key: this operation needs a secret key (sec_…)"],
      [client_secret, "Invalid Secret Key: this operation needs a secret key (sec_…)"],
      [undefined, "Missing secret key: send Authorization: Bearer sec_…"],
      ["sec_test_unknown", "Invalid Secret Key"],
    ] as const) {
      const res = await list("", key);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ status: "error", code: "unauthenticated", reason: "invalid_secret_key", message, errors: [] });
    }
  });

  it.each([
    ["limit=0", "limit", "must be an integer from 1 to 100"],
    ["limit=101", "limit", "must be an integer from 1 to 100"],
    ["limit=ten", "limit", "must be an integer from 1 to 100"],
    ["limit=1&limit=2", "limit", "must be given once, as a single value"],
    ["status=PAID", "status", "must be one of INITIATED, PENDING, SUCCESSFUL, ABANDONED"],
    ["currency=EUR", "currency", "must be a fiat currency: USD or NGN"],
    ["currency=1", "currency", "must be a fiat currency: USD or NGN"],
    ["payment_currency=9", "payment_currency", "must be a crypto currency id (3–8) or slug (USDT, BTC, BNB, ETH, LTC, USDC)"],
    ["payment_currency=USD", "payment_currency", "must be a crypto currency id (3–8) or slug (USDT, BTC, BNB, ETH, LTC, USDC)"],
    ["created[gte]=yesterday", "created[gte]", "must be an ISO 8601 date-time with a time zone, e.g. 2026-11-01T00:00:00Z"],
    ["created[lt]=2026-11-01T00:00:00", "created[lt]", "must be an ISO 8601 date-time with a time zone, e.g. 2026-11-01T00:00:00Z"],
    ["starting_after=bq_abc", "starting_after", "must be the id (a UUID) of a transaction of the previous page"],
    ["q=", "q", "must not be empty"],
    ["q=a%00b", "q", "must not contain NUL characters"],
    ["created_gte=2026-11-01T00:00:00Z", "created_gte", "is not a parameter of this list"],
  ])("answers 400 naming the parameter for ?%s", async (query, field, message) => {
    const res = await list(`?${query}`, keys.testSecretKey);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: "error",
      code: "validation_error",
      reason: "invalid_list_parameter",
      message: `Invalid query parameter: ${field} ${message}`,
      errors: [{ field, message }],
    });
  });

  it("names every refused parameter at once", async () => {
    const res = await list("?limit=0&status=PAID", keys.testSecretKey);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      "Invalid query parameters: limit must be an integer from 1 to 100; status must be one of INITIATED, PENDING, SUCCESSFUL, ABANDONED",
    );
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["limit", "status"]);
  });

  it("answers 400 for a starting_after that names no transaction of the merchant and mode", async () => {
    const id = "0b6f8f4e-1c1d-4a57-9f54-5a1f2f0e9d11";
    const res = await list(`?starting_after=${id}`, keys.testSecretKey);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: "error",
      code: "validation_error",
      reason: "unknown_cursor",
      message: `Invalid query parameter: starting_after names no object of this merchant and mode ('${id}'); pass the id of the last object of the previous page`,
      errors: [{ field: "starting_after", message: "names no object of this merchant and mode" }],
    });
  });
});

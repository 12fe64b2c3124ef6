// Client secrets on REST (issue 11): initialize makes one, replays show it again, it is stored sealed,
// it reads its own transaction and nothing else, and REST's initiate still wants the secret key.
// Also return_url and checkout_url on PAYGATE_PUBLIC_URL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

const PUBLIC_URL = "https://pay.example.com";
const CLIENT_SECRET = /^([0-9a-f-]{36})_secret_[0-9A-Za-z]{32}$/;

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway({ publicUrl: PUBLIC_URL });
  keys = await t.merchant();
});
afterAll(() => t.close());

const order = (extra: Record<string, unknown> = {}) => initializeBody({ customer: { email: "ada@example.com", name: "Ada Obi" }, ...extra });

async function initialize(extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await t.post("/v1/transaction", order(extra), { authorization: `Bearer ${keys.testPublicKey}`, ...headers });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; client_secret: string; checkout_url: string; return_url: string | null; status: string };
}

const get = async (id: string, token?: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${t.url}/v1/transaction/${id}`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

/** The transaction's row as stored, for checking that nothing moved. */
const row = (id: string) => t.db.transaction.findUniqueOrThrow({ where: { id } });

describe("initialize", () => {
  it("returns the client secret and the checkout URL on PAYGATE_PUBLIC_URL", async () => {
    const data = await initialize();
    expect(data.client_secret).toMatch(CLIENT_SECRET);
    expect(CLIENT_SECRET.exec(data.client_secret)?.[1]).toBe(data.id);
    expect(data.checkout_url).toBe(`${PUBLIC_URL}/checkout/${data.client_secret}`);
    expect(data.return_url).toBeNull();
  });

  it("gives each transaction its own secret", async () => {
    const [a, b] = [await initialize(), await initialize()];
    expect(a.client_secret.split("_secret_")[1]).not.toBe(b.client_secret.split("_secret_")[1]);
  });

  it("shows the same client secret again on a replay with the same Idempotency-Key", async () => {
    const key = crypto.randomUUID();
    const first = await t.post("/v1/transaction", order(), { authorization: `Bearer ${keys.testPublicKey}`, "idempotency-key": key });
    const again = await t.post("/v1/transaction", order(), { authorization: `Bearer ${keys.testPublicKey}`, "idempotency-key": key });
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.data.client_secret).toBe(first.body.data.client_secret);
    expect(again.body.data.checkout_url).toBe(first.body.data.checkout_url);
  });

  it("stores the client secret sealed, never in plain text", async () => {
    const data = await initialize();
    const stored = await row(data.id);
    expect(stored.clientSecretEnc).toMatch(/^v1\./);
    expect(stored.clientSecretEnc).not.toContain(data.client_secret.split("_secret_")[1]);
    expect(t.secrets.open(stored.clientSecretEnc!)).toBe(data.client_secret);
    // Nor in any other column, nor in the webhook event's body.
    const text = JSON.stringify(await t.db.$queryRaw`SELECT * FROM transactions WHERE id = ${data.id}`);
    expect(text).not.toContain(data.client_secret);
    const events = await t.db.webhookEvent.findMany({ where: { transactionId: data.id } });
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expect(event.body).not.toContain(data.client_secret);
  });
});

describe("GET /v1/transaction/:id with the client secret", () => {
  it("reads its own transaction, with its client secret and checkout_url and without the customer", async () => {
    const data = await initialize({ return_url: "http://127.0.0.1:5173/done" });
    const res = await get(data.id, data.client_secret);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: data.id,
      status: "INITIATED",
      checkout_url: data.checkout_url,
      client_secret: data.client_secret,
      return_url: "http://127.0.0.1:5173/done",
    });
    expect(JSON.stringify(res.body)).not.toContain("ada@example.com");
  });

  it("shows the client secret and checkout_url to the secret key, never to the public key (it would let anyone pick the coin)", async () => {
    const data = await initialize();
    const secret = await get(data.id, keys.testSecretKey);
    expect(secret.body.data).toMatchObject({ client_secret: data.client_secret, checkout_url: data.checkout_url });
    const pub = await get(data.id, keys.testPublicKey);
    expect(pub.status).toBe(200);
    expect(pub.body.data).not.toHaveProperty("client_secret");
    expect(pub.body.data).not.toHaveProperty("checkout_url");
    expect(JSON.stringify(pub.body)).not.toContain(data.client_secret);
  });

  it("finds nothing with the client secret of another transaction, and changes nothing", async () => {
    const x = await initialize();
    const y = await initialize();
    const before = await row(y.id);
    const res = await get(y.id, x.client_secret);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      status: "error",
      code: "not_found",
      reason: "transaction_not_found",
      message: `No transaction with id '${y.id}'`,
    });
    expect(await row(y.id)).toEqual(before);
  });

  it("refuses a tampered client secret (right id, wrong random part) with 401", async () => {
    const data = await initialize();
    const random = data.client_secret.split("_secret_")[1]!;
    const tampered = `${data.id}_secret_${random.slice(0, -1)}${random.endsWith("A") ? "B" : "A"}`;
    for (const token of [tampered, `${crypto.randomUUID()}_secret_${random}`]) {
      const res = await get(data.id, token);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({
        status: "error",
        code: "unauthenticated",
        reason: "invalid_client_secret",
        message: "Invalid client secret: use the client_secret that initialize returned for this transaction",
      });
    }
  });

  it("is a browser credential: answered with CORS, not refused like a secret key", async () => {
    const data = await initialize();
    const res = await get(data.id, data.client_secret, { origin: "https://shop.example.com" });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("gives a transaction made before client secrets one when first shown, the same ever after", async () => {
    const data = await initialize();
    await t.db.$executeRaw`UPDATE transactions SET client_secret_enc = NULL WHERE id = ${data.id}`;
    const first = await get(data.id, keys.testSecretKey);
    expect(first.status).toBe(200);
    const secret = first.body.data.client_secret as string;
    expect(secret).toMatch(CLIENT_SECRET);
    expect(secret).not.toBe(data.client_secret);
    expect(first.body.data.checkout_url).toBe(`${PUBLIC_URL}/checkout/${secret}`);
    expect((await get(data.id, keys.testSecretKey)).body.data.client_secret).toBe(secret);
    expect((await get(data.id, secret)).status).toBe(200);
    // Giving it a secret is not a state change: no second event.
    expect(await t.db.webhookEvent.count({ where: { transactionId: data.id } })).toBe(1);
  });
});

describe("REST initiate", () => {
  it("refuses the client secret with 401 and moves nothing (spec 4.2 takes the secret key)", async () => {
    const data = await initialize();
    const res = await t.post(`/v1/transaction/${data.id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${data.client_secret}` });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      status: "error",
      code: "unauthenticated",
      message: "Invalid Secret Key: this operation needs a secret key (sec_…)",
    });
    expect((await row(data.id)).status).toBe("INITIATED");
  });

  it("answers the secret key with checkout_url, return_url and the client secret", async () => {
    const data = await initialize({ return_url: "https://shop.example.com/orders/42" });
    const res = await t.post(`/v1/transaction/${data.id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: "PENDING",
      payment_amount: 0.00153847,
      checkout_url: data.checkout_url,
      client_secret: data.client_secret,
      return_url: "https://shop.example.com/orders/42",
    });
  });
});

describe("return_url", () => {
  it("is refused with 400 and the field's message when it is not a URL", async () => {
    const res = await t.post("/v1/transaction", order({ return_url: "not a url" }), { authorization: `Bearer ${keys.testPublicKey}` });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: "error",
      message: "Validation Error",
      reason: "invalid_request",
      errors: [
        {
          field: "return_url",
          message: "return_url: return URL is not a valid absolute URL; use a full URL such as https://shop.example.com/orders/42",
        },
      ],
    });
  });

  it("is refused for other schemes and for credentials in it", async () => {
    for (const [url, message] of [
      ["javascript:alert(1)", "return_url: return URLs must use http or https (got javascript:)"],
      [
        "https://user:pw@shop.example.com/",
        "return_url: return URLs must not contain a username or password; the customer's browser would show them",
      ],
    ] as const) {
      const res = await t.post("/v1/transaction", order({ return_url: url }), { authorization: `Bearer ${keys.testPublicKey}` });
      expect(res.status, url).toBe(400);
      expect(res.body.errors, url).toEqual([{ field: "return_url", message }]);
    }
  });

  it("must be https on a public host in live mode", async () => {
    const live = await t.merchant({ name: "Live Ltd", kyb: "VERIFIED" });
    for (const [url, message] of [
      ["http://shop.example.com/done", "return_url: live-mode return URLs must use https (got http:)"],
      [
        "https://localhost/done",
        "return_url: live-mode return URLs must point at a public host: localhost is the local machine; use a public hostname",
      ],
    ] as const) {
      const res = await t.post("/v1/transaction", order({ return_url: url }), { authorization: `Bearer ${live.livePublicKey}` });
      expect(res.status, url).toBe(400);
      expect(res.body).toMatchObject({ message: "Validation Error", errors: [{ field: "return_url", message }] });
    }
    const ok = await t.post("/v1/transaction", order({ return_url: "https://shop.example.com/done" }), {
      authorization: `Bearer ${live.livePublicKey}`,
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.return_url).toBe("https://shop.example.com/done");
  });

  it("may be http on localhost in test mode, and is shown normalised", async () => {
    const data = await initialize({ return_url: "http://LOCALHOST:5173/orders/42?paid=1" });
    expect(data.return_url).toBe("http://localhost:5173/orders/42?paid=1");
  });

  it("is part of the request an Idempotency-Key remembers", async () => {
    const key = crypto.randomUUID();
    const headers = { authorization: `Bearer ${keys.testPublicKey}`, "idempotency-key": key };
    expect((await t.post("/v1/transaction", order({ return_url: "http://localhost/a" }), headers)).status).toBe(201);
    const other = await t.post("/v1/transaction", order({ return_url: "http://localhost/b" }), headers);
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ reason: "idempotency_key_reused" });
  });
});

describe("logs", () => {
  it("never carry the client secret", async () => {
    const data = await initialize();
    await get(data.id, data.client_secret);
    await get(data.id, `${data.id}_secret_${"x".repeat(32)}`);
    await t.post(`/v1/transaction/${data.id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${data.client_secret}` });
    const random = data.client_secret.split("_secret_")[1]!;
    const lines = t.logs.join("\n");
    expect(lines).toContain(`"route":"/v1/transaction/:transaction_id"`);
    expect(lines).not.toContain(random);
    expect(lines).not.toMatch(/[0-9a-f-]{36}_secret_/);
  });
});

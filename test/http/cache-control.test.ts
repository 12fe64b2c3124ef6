// REST answers that carry a client secret, a checkout URL or customers' data are never stored by a
// cache (issue 23): `Cache-Control: no-store` on every /v1 route, its errors included, as on GraphQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let keys: NewMerchant;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Cache Control Ltd" });
});
afterAll(() => t.close());

interface Answer {
  status: number;
  cacheControl: string | null;
  body: any;
}

async function call(method: "GET" | "POST", path: string, key: string, body?: unknown): Promise<Answer> {
  const response = await fetch(t.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, cacheControl: response.headers.get("cache-control"), body: await response.json() };
}

const initialize = () => call("POST", "/v1/transaction", keys.testPublicKey, initializeBody({ amount: "10" }));

describe("Cache-Control on the REST API", () => {
  it("is no-store on every answer with a client secret: initialize, initiate, GET, the test helpers and the list", async () => {
    const initialized = await initialize();
    expect(initialized.status).toBe(201);
    expect(initialized.body.data.client_secret).toEqual(expect.any(String));
    expect(initialized.cacheControl).toBe("no-store");
    const { id, client_secret: clientSecret } = initialized.body.data;

    const answers: Array<[string, Answer, number]> = [
      ["GET with the secret key", await call("GET", `/v1/transaction/${id}`, keys.testSecretKey), 200],
      ["GET with the client secret", await call("GET", `/v1/transaction/${id}`, clientSecret), 200],
      ["GET with the public key", await call("GET", `/v1/transaction/${id}`, keys.testPublicKey), 200],
      ["initiate", await call("POST", `/v1/transaction/${id}/pay`, keys.testSecretKey, { currency_id: "4" }), 200],
      ["a test payment", await call("POST", `/v1/test_helpers/transaction/${id}/payment`, keys.testSecretKey, {}), 200],
      ["the list", await call("GET", "/v1/transactions", keys.testSecretKey), 200],
    ];
    const other = (await initialize()).body.data.id;
    answers.push(["a test expiry", await call("POST", `/v1/test_helpers/transaction/${other}/expire`, keys.testSecretKey, {}), 200]);
    for (const [name, answer, status] of answers) {
      expect(answer.status, name).toBe(status);
      expect(answer.cacheControl, name).toBe("no-store");
    }
    expect(answers[0]?.[1].body.data.client_secret).toBe(clientSecret);
    expect(answers[5]?.[1].body.data[0].client_secret).toEqual(expect.any(String));
  });

  it("is no-store on the events and on errors too", async () => {
    await initialize();
    const events = await call("GET", "/v1/events", keys.testSecretKey);
    expect(events.status).toBe(200);
    expect(events.cacheControl).toBe("no-store");
    const event = await call("GET", `/v1/events/${events.body.data[0].id}`, keys.testSecretKey);
    expect(event.status).toBe(200);
    expect(event.cacheControl).toBe("no-store");

    const invalid = await call("POST", "/v1/transaction", keys.testPublicKey, { currency: "USD" });
    expect(invalid.status).toBe(400);
    expect(invalid.cacheControl).toBe("no-store");
    const unknown = await call("GET", "/v1/transaction/00000000-0000-4000-8000-000000000000", keys.testSecretKey);
    expect(unknown.status).toBe(404);
    expect(unknown.cacheControl).toBe("no-store");
  });

  it("matches GraphQL's, which says the same for the same secret", async () => {
    const response = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${keys.testPublicKey}` },
      body: JSON.stringify({
        query: 'mutation { initializeTransaction(input: { customer: { email: "ada@example.com" }, currency: USD, amount: "10" }) { clientSecret } }',
      }),
    });
    const body = (await response.json()) as { data: { initializeTransaction: { clientSecret: string } } };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data.initializeTransaction.clientSecret).toEqual(expect.any(String));
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

// Mutations per GraphQL request (issue 23): 10 aliased initializeTransaction made 10 transactions for
// one rate-limit count. Now each root mutation field counts against the caller's bucket, and a request
// with more than MAX_MUTATIONS_PER_REQUEST is refused (400) before anything runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { MAX_MUTATIONS_PER_REQUEST } from "../../src/graphql/mutation-limits.ts";
import { manualClock } from "../support/clock.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const LIMIT = 8;
let t: TestGateway;
const clock = manualClock();

beforeAll(async () => {
  clock.nextMinute(); // a whole window ahead of every test
  t = await startTestGateway({ rateLimits: { policy: { test: { limit: LIMIT, windowMs: 60_000 } }, clock } });
});
afterAll(() => t.close());

const INPUT = '{ customer: { email: "ada@example.com" }, currency: USD, amount: "10" }';
const initialize = (alias: string) => `${alias}: initializeTransaction(input: ${INPUT}) { id }`;
const aliased = (n: number) => `mutation { ${Array.from({ length: n }, (_, i) => initialize(`t${i}`)).join(" ")} }`;

async function graphql(key: string, query: string) {
  const response = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ query }),
  });
  return {
    status: response.status,
    remaining: response.headers.get("ratelimit-remaining"),
    retryAfter: response.headers.get("retry-after"),
    body: (await response.json()) as {
      data?: Record<string, { id: string }> | null;
      errors?: { message: string; extensions: Record<string, unknown> }[];
    },
  };
}

/** A merchant of its own: a test key, so a bucket, of its own. */
async function merchant(name: string): Promise<NewMerchant> {
  return t.merchant({ name });
}

const transactions = (merchantId: number) => t.db.transaction.count({ where: { merchantId } });

describe("mutations per request", () => {
  it("refuses 10 aliased initializeTransaction with 400 before anything runs, counting the request once", async () => {
    const keys = await merchant("Aliased Ltd");
    const answer = await graphql(keys.testPublicKey, aliased(10));
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors?.[0]?.message).toBe(
      `Too many mutations in one request: 10 root mutation fields, at most ${MAX_MUTATIONS_PER_REQUEST}; ` +
        "send the others in requests of their own (each counts against the rate limit)",
    );
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: "BAD_REQUEST", status: 400, reason: "too_many_mutations" });
    expect(await transactions(keys.id)).toBe(0);
    expect(answer.remaining).toBe(String(LIMIT - 1));
  });

  it("counts fields reached through fragments, and refuses one over the cap", async () => {
    const keys = await merchant("Fragments Ltd");
    const over = MAX_MUTATIONS_PER_REQUEST + 1;
    const fields = Array.from({ length: over }, (_, i) => initialize(`f${i}`));
    const query = `mutation { ...First ... on Mutation { ${fields.slice(3).join(" ")} } }
      fragment First on Mutation { ${fields.slice(0, 3).join(" ")} }`;
    const answer = await graphql(keys.testPublicKey, query);
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.message).toMatch(new RegExp(`^Too many mutations in one request: ${over} root mutation fields`));
    expect(await transactions(keys.id)).toBe(0);
  });

  it("counts each mutation field against the caller's bucket", async () => {
    const keys = await merchant("Counted Ltd");
    const one = await graphql(keys.testPublicKey, aliased(1));
    expect(one.status).toBe(200);
    expect(one.remaining).toBe(String(LIMIT - 1));
    const three = await graphql(keys.testPublicKey, aliased(3));
    expect(three.status, JSON.stringify(three.body)).toBe(200);
    expect(Object.keys(three.body.data ?? {})).toEqual(["t0", "t1", "t2"]);
    expect(three.remaining).toBe(String(LIMIT - 4));
    expect(await transactions(keys.id)).toBe(4);
    // A query counts once, however many aliases it has.
    const read = await graphql(
      keys.testPublicKey,
      `{ a: transaction(id: "${three.body.data?.t0?.id}") { id } b: transaction(id: "${three.body.data?.t1?.id}") { id } }`,
    );
    expect(read.status).toBe(200);
    expect(read.remaining).toBe(String(LIMIT - 5));
  });

  it("answers 429 with Retry-After, running none of them, when the fields take the bucket over its limit", async () => {
    const keys = await merchant("Over Ltd");
    expect((await graphql(keys.testPublicKey, aliased(5))).remaining).toBe(String(LIMIT - 5));
    expect((await graphql(keys.testPublicKey, aliased(2))).remaining).toBe(String(LIMIT - 7));
    // 1 left: the request is admitted as one, its second field goes over.
    const over = await graphql(keys.testPublicKey, aliased(2));
    expect(over.status).toBe(429);
    expect(over.body.data).toBeUndefined();
    expect(over.body.errors?.[0]?.message).toMatch(
      /^Too many requests: requests with this test API key are limited to 8 per minute; retry after \d+ s$/,
    );
    expect(over.body.errors?.[0]?.extensions).toMatchObject({ code: "RATE_LIMITED", status: 429, reason: "rate_limited" });
    expect(Number(over.retryAfter)).toBeGreaterThan(0);
    expect(over.remaining).toBe("0");
    expect(await transactions(keys.id)).toBe(7);
    // The next window takes them again.
    clock.nextMinute();
    const next = await graphql(keys.testPublicKey, aliased(2));
    expect(next.status).toBe(200);
    expect(next.remaining).toBe(String(LIMIT - 2));
    expect(await transactions(keys.id)).toBe(9);
  });
});

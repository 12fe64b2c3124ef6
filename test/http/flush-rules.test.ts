// Flush rules over REST and the CLI's use case (issue 40; docs/settlement.md, Flush rules): when the flush
// job flushes a merchant's settled forwarders. What the job does with a rule is decided by isFlushDue on
// the store's backlog, read here from the database; a flush on anvil is test/e2e/forwarders-anvil.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaygateError } from "../../src/core/errors.ts";
import { Decimal } from "../../src/core/money/amounts.ts";
import { isFlushDue } from "../../src/core/settlement/flush-rules.ts";
import { HTTP_STATUS } from "../../src/edge/status.ts";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function send(method: string, route: string, key: string, body?: unknown) {
  const response = await fetch(`${t.url}${route}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    cache: response.headers.get("cache-control"),
    body: (await response.json()) as { reason?: string; message?: string; data?: unknown; errors?: unknown },
  };
}

describe("a merchant's flush rules", () => {
  it("are set per network and mode, listed, replaced whole, removed, and audited", async () => {
    const keys = await t.merchant({ name: "Rules Ltd" });
    const set = await send("PUT", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey, {
      min_payments: 25,
      min_value: { amount: "500", currency: "usd" },
    });
    expect([set.status, set.cache, set.body.data]).toEqual([
      200,
      "no-store",
      {
        object: "flush_rule",
        network: "ethereum",
        is_live: false,
        min_payments: 25,
        min_value: { amount: "500.00", currency: "USD" },
        max_age_hours: null,
        updated_at: expect.any(String),
      },
    ]);
    // The live mode has none: a test key's rule is test mode's only.
    expect((await send("GET", "/v1/settlements/flush-rules", keys.liveSecretKey)).body.data).toEqual([]);
    // A PUT replaces the whole rule: what it leaves out goes back to the default.
    const replaced = await send("PUT", "/v1/settlements/flush-rules/ETHEREUM", keys.testSecretKey, { max_age_hours: 6 });
    expect(replaced.body.data).toMatchObject({ network: "ethereum", min_payments: null, min_value: null, max_age_hours: 6 });
    const listed = await send("GET", "/v1/settlements/flush-rules", keys.testSecretKey);
    expect([listed.status, listed.body.data]).toEqual([200, [replaced.body.data]]);

    const removed = await send("DELETE", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey);
    expect([removed.status, removed.body.data]).toEqual([200, { network: "ethereum", is_live: false, removed: true }]);
    const again = await send("DELETE", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey);
    expect([again.status, again.body.reason, again.body.message]).toEqual([
      404,
      "flush_rule_not_found",
      "No flush rule for network 'ethereum' in this mode",
    ]);
    expect(await t.db.flushRule.count({ where: { merchantId: keys.id } })).toBe(0);

    const audit = await t.db.auditLogEntry.findMany({
      where: { merchantId: keys.id, action: { in: ["flush_rule.set", "flush_rule.remove"] } },
      orderBy: { id: "asc" },
      select: { action: true, target: true },
    });
    expect(audit).toEqual([
      { action: "flush_rule.set", target: "ethereum in test mode: flush at 25 payments or 500.00 USD" },
      { action: "flush_rule.set", target: "ethereum in test mode: flush at 6 h" },
      { action: "flush_rule.remove", target: "ethereum in test mode" },
    ]);
  });

  it("refuses a rule without a threshold, out of bounds, in another currency or on a network without forwarders: 400 naming each, nothing written", async () => {
    const keys = await t.merchant({ name: "Bad Rules Ltd" });
    const cases: [string, unknown, { field: string; message: string }[]][] = [
      [
        "ethereum",
        {},
        [
          {
            field: "body",
            message: "give at least one of min_payments, min_value, max_age_hours (DELETE the rule to go back to the operator's defaults)",
          },
        ],
      ],
      ["ethereum", { min_payments: 0 }, [{ field: "min_payments", message: "min_payments must be a whole number from 1 to 100" }]],
      ["ethereum", { min_payments: 2.5 }, [{ field: "min_payments", message: "min_payments must be a whole number from 1 to 100" }]],
      ["ethereum", { max_age_hours: 5000 }, [{ field: "max_age_hours", message: "max_age_hours must be a whole number from 1 to 2160" }]],
      [
        "ethereum",
        { min_value: { amount: "10.005", currency: "USD" } },
        [{ field: "min_value.amount", message: 'min_value.amount must be a positive decimal string with at most 2 decimals, such as "500.00"' }],
      ],
      ["ethereum", { min_value: { amount: "0", currency: "USD" } }, [{ field: "min_value.amount", message: "min_value.amount must be more than 0" }]],
      [
        "ethereum",
        { min_value: { amount: "10", currency: "EUR" } },
        [{ field: "min_value.currency", message: "min_value.currency must be one of USD, NGN" }],
      ],
      ["ethereum", { min_payments: 5, every: "hour" }, [{ field: "body", message: expect.stringContaining("every") }]],
      [
        "litecoin",
        { min_payments: 5 },
        [{ field: "network", message: "network must be one of ethereum, bsc, base, polygon, arbitrum (got 'litecoin')" }],
      ],
      ["tron", { min_payments: 5 }, [{ field: "network", message: "network must be one of ethereum, bsc, base, polygon, arbitrum (got 'tron')" }]],
    ];
    for (const [network, body, errors] of cases) {
      const refused = await send("PUT", `/v1/settlements/flush-rules/${network}`, keys.testSecretKey, body);
      expect([refused.status, refused.body.reason, refused.body.message, refused.body.errors], JSON.stringify(body)).toEqual([
        400,
        "invalid_flush_rule",
        "Missing or invalid flush rule fields",
        errors,
      ]);
    }
    const notJson = await fetch(`${t.url}/v1/settlements/flush-rules/ethereum`, {
      method: "PUT",
      headers: { ...bearer(keys.testSecretKey), "content-type": "application/json" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { min_payments: 5 }],
    ] as const) {
      const publicKey = await send(method, `/v1/settlements/flush-rules${method === "PUT" ? "/ethereum" : ""}`, keys.testPublicKey, body);
      expect([publicKey.status, (publicKey.body as { code?: string }).code], method).toEqual([401, "unauthenticated"]);
    }
    expect(await t.db.flushRule.count({ where: { merchantId: keys.id } })).toBe(0);
  });

  it("refuses a viewer (403 with the role's message); reading is the viewer's", async () => {
    const keys = await t.merchant({ name: "Viewer Rules Ltd" });
    const viewer = t.gateway.access.dashboard({
      userId: "usr_viewer",
      merchantId: keys.id,
      role: "viewer",
      merchantActive: true,
      email: "viewer@example.com",
      authenticatedAt: new Date(),
      clientAddress: null,
      mustEnrolSecondFactor: false,
    });
    for (const refusal of [
      () => t.gateway.settlement.setFlushRule(viewer, "ethereum", { min_payments: 2 }),
      () => t.gateway.settlement.removeFlushRule(viewer, "ethereum"),
    ]) {
      let error: unknown = null;
      try {
        await refusal();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(PaygateError);
      expect([HTTP_STATUS[(error as PaygateError).code], (error as PaygateError).message]).toEqual([
        403,
        "Your role (viewer) cannot manage settlement; ask an owner of this merchant for the owner or developer role",
      ]);
    }
    expect(await t.gateway.settlement.flushRules(viewer)).toEqual([]);
    expect(await t.db.flushRule.count({ where: { merchantId: keys.id } })).toBe(0);
  });
});

describe("the flush job's backlog with a rule", () => {
  it("carries the merchant's rule and the waiting orders' value in the rule's fiat; isFlushDue flushes at the first threshold reached", async () => {
    const keys = await t.merchant({ name: "Backlog Ltd" });
    const now = new Date();
    // Three settled payments on forwarders: two ordered in USD, one in NGN.
    const orders = [initializeBody({ amount: "120.50" }), initializeBody({ amount: "80" }), initializeBody({ amount: "50000", currency: "NGN" })];
    for (const [i, body] of orders.entries()) {
      const init = await t.post("/v1/transaction", body, bearer(keys.testPublicKey));
      expect(init.status, JSON.stringify(init.body)).toBe(201);
      const id: string = init.body.data.id;
      const address = `0x${(i + 1).toString(16).padStart(40, "0")}`;
      await t.db.transaction.update({
        where: { id },
        data: { status: "SUCCESSFUL", finalAt: new Date(now.getTime() - 3_600_000), paymentAddress: address },
      });
      await t.db.forwarderDeposit.create({
        data: {
          transactionId: id,
          merchantId: keys.id,
          isLive: false,
          network: "ethereum",
          factory: `0x${"fa".repeat(20)}`,
          destination: `0x${"de".repeat(20)}`,
          salt: `0x${"00".repeat(32)}`,
          address,
          createdAt: now,
        },
      });
    }
    const backlogOf = async () => (await t.stores.forwarders.backlog()).find((b) => b.merchantId === keys.id);
    const defaults = { minPayments: 100, maxAgeMs: 24 * 3_600_000 };

    const bare = await backlogOf();
    expect([bare?.count, bare?.rule, bare?.value.toFixed()]).toEqual([3, null, "0"]);
    // Without a rule, the operator's thresholds: 3 < 100 payments, one hour < 24 h.
    expect(isFlushDue(bare as NonNullable<typeof bare>, defaults, now)).toBe(false);

    expect(
      (await send("PUT", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey, { min_value: { amount: "200.50", currency: "USD" } })).status,
    ).toBe(200);
    const byValue = await backlogOf();
    expect([byValue?.value.toFixed(), byValue?.rule?.minValue?.toFixed()]).toEqual(["200.5", "200.5"]);
    expect(isFlushDue(byValue as NonNullable<typeof byValue>, defaults, now)).toBe(true);

    await send("PUT", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey, { min_value: { amount: "200.51", currency: "USD" } });
    expect(isFlushDue((await backlogOf()) as NonNullable<typeof bare>, defaults, now)).toBe(false);
    // NGN orders count toward an NGN value only.
    await send("PUT", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey, { min_value: { amount: "50000", currency: "NGN" } });
    const byNaira = await backlogOf();
    expect(byNaira?.value.equals(new Decimal("50000"))).toBe(true);
    expect(isFlushDue(byNaira as NonNullable<typeof byNaira>, defaults, now)).toBe(true);

    // A count of its own, below the operator's.
    await send("PUT", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey, { min_payments: 4 });
    expect(isFlushDue((await backlogOf()) as NonNullable<typeof bare>, defaults, now)).toBe(false);
    await send("PUT", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey, { min_payments: 3 });
    expect(isFlushDue((await backlogOf()) as NonNullable<typeof bare>, defaults, now)).toBe(true);
    // An age of its own: one hour waited reaches 1 h, not 2 h.
    await send("PUT", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey, { max_age_hours: 2 });
    expect(isFlushDue((await backlogOf()) as NonNullable<typeof bare>, defaults, now)).toBe(false);
    await send("PUT", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey, { max_age_hours: 1 });
    expect(isFlushDue((await backlogOf()) as NonNullable<typeof bare>, defaults, now)).toBe(true);
    // The operator's count still holds where the rule leaves it out.
    await send("PUT", "/v1/settlements/flush-rules/ethereum", keys.testSecretKey, { max_age_hours: 48 });
    expect(isFlushDue((await backlogOf()) as NonNullable<typeof bare>, { ...defaults, minPayments: 3 }, now)).toBe(true);
  });
});

// Issue 41: modes are walls. Every write route of the REST API (read from the service's own OpenAPI
// document) and every GraphQL mutation (read from schema.graphql) is called with the merchant's test
// keys against its live objects; live mode's state (its signing secrets, endpoints, pricing, keys,
// wallets, transactions, refunds, events and deliveries) must stay exactly as it was, and every call
// that names a live object must be refused. A route or mutation added later is covered the day it
// lands: the test fails until it knows which live object a new parameter or argument names.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  buildSchema,
  getNamedType,
  type GraphQLArgument,
  type GraphQLInputType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVM_NETWORK_SLUGS } from "../../src/core/networks.ts";
import { evmVariables } from "../../src/rails/chains/config.ts";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
/** The objects of one mode that a path parameter or an argument may name. */
interface ModeObjects {
  transaction: string;
  endpoint: string;
  primaryEndpoint: string;
  refund: string;
  delivery: string;
  event: string;
  consolidation: string;
  invoice: string;
  unmatchedReceipt: string;
}
const none = (): ModeObjects => ({
  transaction: "",
  endpoint: "",
  primaryEndpoint: "",
  refund: "",
  delivery: "",
  event: "",
  consolidation: "",
  unmatchedReceipt: "",
  invoice: "",
});
const live = none();
/** Test mode's own objects: a test key may change them, and live mode must not notice (its first endpoint's secret among them). */
const test = none();

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

beforeAll(async () => {
  // No EVM node at all: a sweep recorded with a test key would otherwise ask the public testnet node of
  // the defaults (the network, unreachable here), and the answer must not depend on the internet.
  const noNodes = EVM_NETWORK_SLUGS.flatMap((network) => Object.values(evmVariables(network).rpc).map((name) => [name, "none"]));
  t = await startTestGateway({ env: Object.fromEntries(noNodes) });
  keys = await t.merchant({ name: "Walled Modes Ltd", kyb: "VERIFIED" });
  const liveKey = bearer(keys.liveSecretKey);
  // Live mode's first endpoint and a second one, both receiving every event.
  const first = await t.post("/v1/webhook_endpoints", { url: "https://hooks.example.com/live-first", enabled_events: ["*"] }, liveKey);
  const second = await t.post("/v1/webhook_endpoints", { url: "https://hooks.example.com/live-second", enabled_events: ["*"] }, liveKey);
  expect([first.status, second.status]).toEqual([201, 201]);
  live.primaryEndpoint = first.body.data.id;
  live.endpoint = second.body.data.id;
  // Not the document's example spread (1.5), so that a test key's change would show.
  expect((await t.post("/v1/merchant/pricing", { spread: "2.5" }, liveKey)).status).toBe(200);

  // A live transaction (its events go to both live endpoints).
  const init = await t.post("/v1/transaction", initializeBody({ amount: "40" }), bearer(keys.livePublicKey));
  expect(init.status).toBe(201);
  live.transaction = init.body.data.id;
  const delivery = await t.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: live.endpoint } });
  live.delivery = delivery.id;
  live.event = delivery.eventId;

  // A live refund: made in test mode on a paid transaction, then both moved to live mode as rows.
  const paidInit = await t.post("/v1/transaction", initializeBody({ amount: "100" }), bearer(keys.testPublicKey));
  const paidId: string = paidInit.body.data.id;
  expect((await t.post(`/v1/transaction/${paidId}/pay`, { currency_id: "7" }, bearer(keys.testSecretKey))).status).toBe(200);
  expect((await t.post(`/v1/test_helpers/transaction/${paidId}/payment`, {}, bearer(keys.testSecretKey))).status).toBe(200);
  const refund = await t.post(`/v1/transaction/${paidId}/refunds`, {}, bearer(keys.testSecretKey));
  expect(refund.status, JSON.stringify(refund.body)).toBe(201);
  live.refund = refund.body.data.id;
  await t.db.transaction.update({ where: { id: paidId }, data: { isLive: true } });
  await t.db.refund.update({ where: { id: live.refund }, data: { isLive: true } });

  // Test mode's own: its first endpoint and a second one, a paid transaction with a refund, a delivery.
  const testKey = bearer(keys.testSecretKey);
  const testFirst = await t.post("/v1/webhook_endpoints", { url: "http://127.0.0.1:9/test-first", enabled_events: ["*"] }, testKey);
  const testSecond = await t.post("/v1/webhook_endpoints", { url: "http://127.0.0.1:9/test-second", enabled_events: ["*"] }, testKey);
  expect([testFirst.body.data.primary, testSecond.body.data.primary]).toEqual([true, false]);
  test.primaryEndpoint = testFirst.body.data.id;
  test.endpoint = testSecond.body.data.id;
  const testInit = await t.post("/v1/transaction", initializeBody({ amount: "100" }), bearer(keys.testPublicKey));
  test.transaction = testInit.body.data.id;
  expect((await t.post(`/v1/transaction/${test.transaction}/pay`, { currency_id: "7" }, testKey)).status).toBe(200);
  expect((await t.post(`/v1/test_helpers/transaction/${test.transaction}/payment`, {}, testKey)).status).toBe(200);
  test.refund = (await t.post(`/v1/transaction/${test.transaction}/refunds`, {}, testKey)).body.data.id;
  const testDelivery = await t.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: test.endpoint } });
  test.delivery = testDelivery.id;
  test.event = testDelivery.eventId;

  // An open consolidation in each mode (issue 40), as rows: a test key may cancel test mode's only.
  for (const [mode, objects] of [
    [true, live],
    [false, test],
  ] as const) {
    objects.consolidation = `co_${randomUUID()}`;
    await t.db.consolidation.create({
      data: {
        id: objects.consolidation,
        merchantId: keys.id,
        isLive: mode,
        coin: "LTC",
        network: "litecoin",
        state: "open",
        destination: "ltc1qg82tmcvk6v4c0m5xl8ag3y7g8jtl9lr7yl6mn7",
        feeRate: "2",
        total: "0.5",
        networkFee: "0.00000222",
        amountToReceive: "0.49999778",
        psbt: "cHNidP8BAA==",
        txHash: "0".repeat(64),
        createdAt: new Date(),
        updatedAt: new Date(),
      },
    });
  }

  // An open unmatched receipt on a TRON own address in each mode (issue 40), as rows: a test key may assign or refund test mode's only.
  for (const [mode, objects] of [
    [true, live],
    [false, test],
  ] as const) {
    objects.unmatchedReceipt = `ur_${randomUUID()}`;
    await t.db.unmatchedReceipt.create({
      data: {
        id: objects.unmatchedReceipt,
        merchantId: keys.id,
        isLive: mode,
        network: "tron",
        address: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
        currencyId: 3,
        amount: "25.000417",
        key: `${"ab".repeat(32)}:0`,
        txHash: "ab".repeat(32),
        logIndex: 0,
        blockHeight: 10,
        confirmations: 1,
        seenAt: new Date(),
        state: "open",
        updatedAt: new Date(),
      },
    });
  }

  // A draft invoice in each mode (issue 44), made by that mode's own key: a test key may finalize or void test mode's only.
  for (const [objects, key] of [
    [live, keys.liveSecretKey],
    [test, keys.testSecretKey],
  ] as const) {
    const made = await t.post(
      "/v1/invoices",
      {
        customer: { email: "ada@example.com", name: "Ada Obi" },
        currency: "USD",
        items: [{ description: "Consulting", quantity: 1, unit_price: "150.00" }],
      },
      bearer(key),
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    objects.invoice = made.body.data.id;
  }
});
afterAll(() => t?.close());

const jsonOf = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));

/** Everything live mode uses, as stored (test mode's own columns and write times left out). */
async function liveState(): Promise<string> {
  const rows = (sql: string) => t.db.$queryRawUnsafe<Record<string, unknown>[]>(sql);
  const merchant = await rows(
    `SELECT name, active, kyb_status, live_webhook_url, webhook_secret_enc, webhook_secret_rotated_at, previous_webhook_secret_enc,
       previous_webhook_secret_expires_at, price_spread_percent::text, price_sources FROM merchants WHERE id = ${keys.id}`,
  );
  const of = (table: string, order = "id") => rows(`SELECT * FROM ${table} WHERE merchant_id = ${keys.id} AND is_live ORDER BY ${order}`);
  return jsonOf({
    merchant,
    apiKeys: await of("api_keys"),
    endpoints: await of("webhook_endpoints"),
    transactions: await of("transactions"),
    refunds: await of("refunds"),
    consolidations: await of("consolidations"),
    forwarderSettings: await of("settlement_settings", "network"),
    flushes: await of("forwarder_flushes"),
    invoices: await of("invoices"),
    flushRules: await of("flush_rules", "network"),
    unmatchedReceipts: await of("unmatched_receipts"),
    events: await of("webhook_events"),
    processors: await of("payment_processors"),
    links: await of("payment_links"),
    defaults: await rows(`SELECT * FROM merchant_default_networks WHERE merchant_id = ${keys.id} AND is_live ORDER BY currency_id`),
    deliveries: await rows(
      `SELECT d.* FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.merchant_id = ${keys.id} AND e.is_live ORDER BY d.id`,
    ),
  });
}

// ── REST: the write routes of the OpenAPI document ──

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  example?: unknown;
  enum?: unknown[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  $ref?: string;
}

/** Which object a path parameter names. */
const PATH_OBJECTS: Record<string, (of: ModeObjects) => string[]> = {
  transaction_id: (of) => [of.transaction],
  endpoint_id: (of) => [of.endpoint, of.primaryEndpoint],
  refund_id: (of) => [of.refund],
  consolidation_id: (of) => [of.consolidation],
  invoice_id: (of) => [of.invoice],
  receipt_id: (of) => [of.unmatchedReceipt],
  // A network names no object of a mode: the routes act on the key's own mode (deposit forwarders, issue 40).
  network: (of) => (of === test ? ["ethereum"] : []),
  delivery_id: (of) => [of.delivery],
  event_id: (of) => [of.event],
};

/** A body the route would accept from its owner: its required fields and those with an example, each its example or a value of its type. */
function sampleOf(schema: Schema | undefined, components: Record<string, Schema>): unknown {
  if (!schema) return {};
  if (schema.$ref) return sampleOf(components[schema.$ref.split("/").at(-1) ?? ""], components);
  if (schema.example !== undefined) return schema.example;
  if (schema.enum) return schema.enum[0];
  const alternative = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (alternative) return sampleOf(alternative, components);
  const type = Array.isArray(schema.type) ? schema.type.find((x) => x !== "null") : schema.type;
  if (type === "object" || schema.properties) {
    const fields = Object.entries(schema.properties ?? {}).filter(([name, field]) => schema.required?.includes(name) || field.example !== undefined);
    return Object.fromEntries(fields.map(([name, field]) => [name, sampleOf(field, components)]));
  }
  if (type === "array") return [sampleOf(schema.items, components)];
  if (type === "string") return "1";
  if (type === "number" || type === "integer") return 1;
  if (type === "boolean") return false;
  return null;
}

/**
 * The whole sample, and the required fields with each optional one alone: one field a service
 * refuses here (a provider it does not offer) would otherwise hide what the others would change.
 */
function bodiesOf(schema: Schema | undefined, components: Record<string, Schema>): unknown[] {
  const resolved = schema?.$ref ? components[schema.$ref.split("/").at(-1) ?? ""] : schema;
  const whole = sampleOf(resolved, components);
  if (typeof whole !== "object" || whole === null || Array.isArray(whole)) return [whole];
  const required = new Set(resolved?.required ?? []);
  const base = Object.fromEntries(Object.entries(whole).filter(([name]) => required.has(name)));
  const optional = Object.entries(whole).filter(([name]) => !required.has(name));
  return optional.length < 2 ? [whole] : [whole, ...optional.map(([name, value]) => ({ ...base, [name]: value }))];
}

describe("a test key against live objects, on every write route of the OpenAPI document", () => {
  it("is refused wherever it names a live object, and changes nothing live mode uses", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
      components: { schemas: Record<string, Schema> };
    };
    const before = await liveState();
    const called: string[] = [];
    // Live objects first (each must be refused), then test mode's own (changed as they may be: live mode must not notice).
    for (const [mode, objects] of [
      ["live", live],
      ["test", test],
    ] as const) {
      // Deletions last: an object deleted early would answer every later route with 404.
      const writes = Object.entries(doc.paths)
        .flatMap(([path, operations]) => Object.entries(operations).map(([method, operation]) => ({ path, method, operation })))
        .filter(({ method }) => ["post", "put", "patch", "delete"].includes(method))
        .sort((a, b) => Number(a.method === "delete") - Number(b.method === "delete"));
      for (const { path, method, operation } of writes) {
        {
          const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
          const unknown = params.filter((p) => !(p in PATH_OBJECTS));
          expect(unknown, `${method.toUpperCase()} ${path}: which object does {${unknown.join("}, {")}} name? Add it to PATH_OBJECTS`).toEqual([]);
          // One URL per object a parameter may name (an endpoint: the mode's first and another).
          const urls = params.reduce(
            (paths, name) => paths.flatMap((p) => (PATH_OBJECTS[name]?.(objects) ?? []).map((id) => p.replace(`{${name}}`, id))),
            [path],
          );
          const bodies = bodiesOf(operation.requestBody?.content?.["application/json"]?.schema, doc.components.schemas);
          for (const url of urls) {
            for (const key of [keys.testSecretKey, keys.testPublicKey]) {
              for (const sent of bodies) {
                const res = await fetch(`${t.url}${url}`, {
                  method: method.toUpperCase(),
                  headers: { ...bearer(key), "content-type": "application/json" },
                  ...(method === "delete" ? {} : { body: JSON.stringify(sent) }),
                });
                const text = await res.text();
                const label = `${method.toUpperCase()} ${url} (${mode}) with ${key.slice(0, 8)}…: ${res.status} ${text.slice(0, 200)}`;
                if (mode === "live" && params.length > 0) expect([401, 403, 404], label).toContain(res.status);
                // No forwarder factory and no EVM node are configured here: the operator's 503 naming what is missing, no mode wall.
                const unconfigured = ["forwarders_not_configured", "chain_node_unavailable"];
                if (!(res.status === 503 && unconfigured.includes(JSON.parse(text).reason))) expect(res.status, label).toBeLessThan(500);
                expect(await liveState(), label).toBe(before);
                called.push(`${method} ${path}`);
              }
            }
          }
        }
      }
    }
    // The routes that touch merchant-wide or keyed objects are among them (the document is read, not an empty list).
    expect(called).toEqual(
      expect.arrayContaining([
        "post /v1/merchant/pricing",
        "post /v1/webhook_endpoints/{endpoint_id}/rotate_secret",
        "post /v1/refunds/{refund_id}/cancel",
      ]),
    );
  });
});

// ── GraphQL: every mutation of schema.graphql ──

const schema = buildSchema(readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8"));

/** Which object an ID argument names, by the mutation it belongs to. */
function idFor(of: ModeObjects, field: string, arg: string): string {
  if (arg === "transactionId") return of.transaction;
  // Not an object: the coin to pay in.
  if (arg === "currencyId") return "4";
  if (arg === "endpointId") return of.endpoint;
  if (arg === "id" && /Refund/.test(field)) return of.refund;
  if (arg === "id" && /Invoice/.test(field)) return of.invoice;
  if (arg === "id" && /WebhookDelivery/.test(field)) return of.delivery;
  if (arg === "id" && /WebhookEndpoint/.test(field)) return of.primaryEndpoint;
  throw new Error(`${field}(${arg}): which object does this ID name? Add it to idFor`);
}

/** A GraphQL literal of the type: IDs name live objects; other values are plausible ones. */
function literal(of: ModeObjects, type: GraphQLInputType, field: string, name: string): string {
  if (isNonNullType(type)) return literal(of, type.ofType, field, name);
  if (isListType(type)) return `[${literal(of, type.ofType, field, name)}]`;
  if (isEnumType(type)) return type.getValues()[0]?.name ?? "";
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).map((f) => `${f.name}: ${literal(of, f.type, field, f.name)}`);
    return `{ ${fields.join(", ")} }`;
  }
  if (isScalarType(type)) {
    if (type.name === "ID") return JSON.stringify(idFor(of, field, name));
    if (type.name === "Int") return "1";
    if (type.name === "Float") return "1";
    if (type.name === "Boolean") return "false";
    if (/url/i.test(name)) return JSON.stringify("https://hooks.example.com/from-test-key");
    if (/email/i.test(name)) return JSON.stringify("ada@example.com");
    if (/events/i.test(name)) return JSON.stringify("*");
    if (/since/i.test(name)) return JSON.stringify("2026-01-01T00:00:00Z");
    if (/amount/i.test(name)) return JSON.stringify("1");
    if (/currency/i.test(name)) return JSON.stringify("USD");
    return JSON.stringify("1");
  }
  throw new Error(`${field}(${name}): no literal for ${String(type)}`);
}

describe("a test key against live objects, on every GraphQL mutation", () => {
  const mutations = Object.values(schema.getMutationType()?.getFields() ?? {});

  it("reads the mutations from the schema", () => {
    expect(mutations.map((m) => m.name)).toEqual(expect.arrayContaining(["createRefund", "rotateWebhookEndpointSecret", "initiatePayment"]));
  });

  it("is refused wherever it names a live object, and changes nothing live mode uses", async () => {
    const before = await liveState();
    for (const [mode, objects] of [
      ["live", live],
      ["test", test],
    ] as const) {
      // Deletions last, as above.
      for (const mutation of [...mutations].sort((a, b) => Number(a.name.startsWith("delete")) - Number(b.name.startsWith("delete")))) {
        const args = mutation.args.map((a: GraphQLArgument) => `${a.name}: ${literal(objects, a.type, mutation.name, a.name)}`);
        const namesObject = mutation.args.some((a) => getNamedType(a.type).name === "ID" && a.name !== "currencyId");
        const query = `mutation { ${mutation.name}${args.length > 0 ? `(${args.join(", ")})` : ""} { __typename } }`;
        for (const key of [keys.testSecretKey, keys.testPublicKey]) {
          const res = await t.post("/graphql", { query }, bearer(key));
          const label = `${mutation.name} (${mode}) with ${key.slice(0, 8)}…: ${JSON.stringify(res.body).slice(0, 300)}`;
          expect(res.status, label).toBeLessThan(500);
          if (mode === "live" && namesObject) {
            expect(res.body.data?.[mutation.name] ?? null, label).toBeNull();
            expect(res.body.errors?.[0]?.extensions?.code, label).toMatch(/^(NOT_FOUND|UNAUTHENTICATED|FORBIDDEN|BAD_USER_INPUT)$/);
          }
          expect(await liveState(), label).toBe(before);
        }
      }
    }
  });
});

// The Medusa plugin end to end, on PostgreSQL: paygate (test mode, in this process) and a real Medusa
// 2.21 server (test/app, a child process on a database of its own, created and dropped here) with the
// plugin built into .medusa/server. One Medusa for every scenario: its start-up is the cost.
// The storefront's steps go through Medusa's Store API, the merchant's through its Admin API, the
// customer's payment through paygate's test helper, and paygate's webhooks reach the plugin's own
// route, /hooks/paygate.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eService, startE2eService } from "../../../test/e2e/service.ts";
import { admin } from "../../../test/support/test-database.ts";

const pluginDir = fileURLToPath(new URL("..", import.meta.url));
const appDir = path.join(pluginDir, "test", "app");
const medusaCli = path.join(pluginDir, "node_modules", "@medusajs", "cli", "cli.js");
const LTC = "7";

interface Json {
  [key: string]: unknown;
}

interface Session {
  id: string;
  provider_id: string;
  status: string;
  data: { paygate_id: string; checkout_url: string; session_id: string };
}

interface Seed {
  publishable_key: string;
  secret_key: string;
  region_id: string;
  eur_region_id: string;
  variant_id: string;
}

interface Delivery {
  id: string;
  event: { id: string; type: string };
  status: string;
  attempts: number;
  status_code: number | null;
}

let paygate: E2eService;
let medusa: ChildProcess | undefined;
let medusaUrl = "";
let seed: Seed;
const medusaLog: string[] = [];
const database = `medusa_paygate_${randomBytes(5).toString("hex")}`;
const adminUrl = process.env.DATABASE_URL ?? "";
const timings: Record<string, number> = {};

const adminSql = (sql: string) => admin(adminUrl, sql);

function databaseUrl(): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Runs the medusa CLI in the test app (migrations), resolving on exit 0. */
function medusaCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [medusaCli, ...args], { cwd: appDir, env, stdio: ["ignore", "pipe", "pipe"] });
    const out: string[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => out.push(chunk.toString()));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`medusa ${args.join(" ")} exited ${code}: ${out.join("").slice(-3000)}`))));
  });
}

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; Medusa's log ends: ${medusaLog.join("").slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function call(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Json };
}

const store = (method: string, route: string, body?: unknown) =>
  call(`${medusaUrl}${route}`, method, { "x-publishable-api-key": seed.publishable_key }, body);
const medusaAdmin = (method: string, route: string, body?: unknown) =>
  call(`${medusaUrl}${route}`, method, { authorization: `Basic ${Buffer.from(`${seed.secret_key}:`).toString("base64")}` }, body);
const paygateApi = (method: string, route: string, body?: unknown) =>
  call(`${paygate.url}${route}`, method, { authorization: `Bearer ${paygate.merchant.testSecretKey}` }, body);

/** A guest's cart of one $10.00 item, with a paygate payment session: what the storefront does before redirecting. */
async function cartWithPaygateSession(email: string): Promise<{ cartId: string; collectionId: string; session: Session }> {
  const { cartId, collectionId } = await cartToPay(seed.region_id, email);
  const session = await store("POST", `/store/payment-collections/${collectionId}/payment-sessions`, {
    provider_id: "pp_paygate_paygate",
    data: { email },
  });
  expect(session.status, JSON.stringify(session.body)).toBe(200);
  const sessions = (session.body.payment_collection as { payment_sessions: Session[] }).payment_sessions;
  expect(sessions).toHaveLength(1);
  return { cartId, collectionId, session: sessions[0] as Session };
}

/** A guest's cart of one item in the region, with its payment collection. */
async function cartToPay(regionId: string, email: string): Promise<{ cartId: string; collectionId: string }> {
  const cart = await store("POST", "/store/carts", { region_id: regionId, email });
  expect(cart.status, JSON.stringify(cart.body)).toBe(200);
  const cartId = (cart.body.cart as { id: string }).id;
  const item = await store("POST", `/store/carts/${cartId}/line-items`, { variant_id: seed.variant_id, quantity: 1 });
  expect(item.status, JSON.stringify(item.body)).toBe(200);
  const collection = await store("POST", "/store/payment-collections", { cart_id: cartId });
  expect(collection.status, JSON.stringify(collection.body)).toBe(200);
  return { cartId, collectionId: (collection.body.payment_collection as { id: string }).id };
}

/** The customer on paygate's checkout: picks Litecoin (initiate), then pays `amount` (else what is owed) with the test helper. */
async function customerPays(transactionId: string, amount?: (owed: string) => string): Promise<Json> {
  const chosen = await paygateApi("POST", `/v1/transaction/${transactionId}/pay`, { currency_id: LTC });
  expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
  const owed = String((chosen.body.data as { payment_amount: number }).payment_amount);
  const paid = await paygateApi("POST", `/v1/test_helpers/transaction/${transactionId}/payment`, amount ? { amount: amount(owed) } : {});
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return paid.body.data as Json;
}

async function ordersOf(cartId: string): Promise<string[]> {
  const found = await call(`${medusaUrl}/paygate-test/carts/${cartId}/orders`, "GET", {});
  expect(found.status).toBe(200);
  return found.body.order_ids as string[];
}

interface Order {
  id: string;
  status: string;
  payment_status: string;
  payment_collections: { payments: { id: string; provider_id: string; data: Json; captured_at: string | null; refunds: { amount: number }[] }[] }[];
}

async function order(id: string): Promise<Order> {
  const fields = "id,status,payment_status,*payment_collections,*payment_collections.payments,*payment_collections.payments.refunds";
  const got = await medusaAdmin("GET", `/admin/orders/${id}?fields=${encodeURIComponent(fields)}`);
  expect(got.status, JSON.stringify(got.body)).toBe(200);
  return got.body.order as Order;
}

async function sessionsOf(cartId: string): Promise<Session[]> {
  const got = await store("GET", `/store/carts/${cartId}?fields=${encodeURIComponent("id,*payment_collection.payment_sessions")}`);
  expect(got.status, JSON.stringify(got.body)).toBe(200);
  return (got.body.cart as { payment_collection: { payment_sessions: Session[] } }).payment_collection.payment_sessions;
}

/** The deliveries to Medusa (the merchant's first test endpoint), newest first. */
async function deliveries(): Promise<Delivery[]> {
  const endpoints = await paygateApi("GET", "/v1/webhook_endpoints");
  expect(endpoints.status, JSON.stringify(endpoints.body)).toBe(200);
  const first = (endpoints.body.data as { id: string; url: string }[]).find((e) => e.url.startsWith(medusaUrl));
  if (!first) throw new Error(`no endpoint to Medusa: ${JSON.stringify(endpoints.body)}`);
  const list = await paygateApi("GET", `/v1/webhook_endpoints/${first.id}/deliveries?limit=100`);
  expect(list.status, JSON.stringify(list.body)).toBe(200);
  return list.body.data as Delivery[];
}

/** Compiles the plugin into .medusa/server (the package's build), as Medusa loads it. */
function buildPlugin(): Promise<void> {
  return new Promise((resolve, reject) => {
    const tsc = path.join(pluginDir, "node_modules", "typescript", "bin", "tsc");
    const child = spawn(process.execPath, [tsc, "-p", path.join(pluginDir, "tsconfig.json")], { cwd: pluginDir, stdio: "inherit" });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the plugin's build exited ${code}`))));
  });
}

/** Measures `work` into timings[name]. */
async function timed<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await work();
  timings[name] = Date.now() - started;
  return result;
}

beforeAll(async () => {
  const started = Date.now();
  const port = await freePort();
  medusaUrl = `http://127.0.0.1:${port}`;
  const base: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl(), NODE_ENV: "development", MEDUSA_DISABLE_TELEMETRY: "true" };
  // Three things at once: the plugin's build, Medusa's migrations (which need no plugin), paygate.
  await Promise.all([
    timed("build", buildPlugin),
    timed("migrate", async () => {
      await adminSql(`CREATE DATABASE "${database}"`);
      await medusaCommand(["db:migrate"], { ...base, PAYGATE_TEST_MIGRATE_ONLY: "true" });
    }),
    timed("paygate", async () => {
      paygate = await startE2eService({}, ["LTC"], { runtime: { addressWatch: null } });
      await paygate.runtime.gateway.operator.updateMerchant(paygate.merchant.id, { testWebhookUrl: `${medusaUrl}/hooks/paygate` });
    }),
  ]);
  const env: NodeJS.ProcessEnv = {
    ...base,
    PORT: String(port),
    PAYGATE_URL: paygate.url,
    PAYGATE_PUBLIC_KEY: paygate.merchant.testPublicKey,
    PAYGATE_SECRET_KEY: paygate.merchant.testSecretKey,
    PAYGATE_WEBHOOK_SECRET: paygate.merchant.webhookSecret,
  };
  const startedMedusa = Date.now();
  const child = spawn(process.execPath, [medusaCli, "start"], { cwd: appDir, env, stdio: ["ignore", "pipe", "pipe"] });
  medusa = child;
  child.stdout?.on("data", (chunk: Buffer) => medusaLog.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => medusaLog.push(chunk.toString()));
  await until(
    "Medusa answers /health",
    async () => {
      if (child.exitCode !== null) throw new Error(`Medusa exited ${child.exitCode}: ${medusaLog.join("").slice(-3000)}`);
      const health = await fetch(`${medusaUrl}/health`).catch(() => undefined);
      return health?.status === 200 ? true : undefined;
    },
    240_000,
  );
  timings.start = Date.now() - startedMedusa;
  const seeded = await call(`${medusaUrl}/paygate-test/seed`, "POST", {});
  expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
  seed = seeded.body as unknown as Seed;
  timings.total = Date.now() - started;
  console.log(`medusa e2e start-up: ${JSON.stringify(timings)} ms`);
}, 420_000);

afterAll(async () => {
  if (medusa && medusa.exitCode === null) {
    const exited = new Promise((resolve) => medusa?.once("exit", resolve));
    medusa.kill("SIGTERM");
    const timer = setTimeout(() => medusa?.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
  await paygate?.close();
  if (adminUrl) await adminSql(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}, 60_000);

describe("Medusa checkout with paygate", () => {
  let paidCartId = "";
  let paidTransactionId = "";
  let paidSessionId = "";

  it("a cart paid on paygate's checkout becomes an order, authorized and captured by the webhook", async () => {
    const { cartId, session } = await cartWithPaygateSession("ada@example.com");
    expect(session.status).toBe("pending");
    expect(session.data.checkout_url).toMatch(/\/checkout\/[^/]+_secret_/);
    const transaction = await paygateApi("GET", `/v1/transaction/${session.data.paygate_id}`);
    expect(transaction.body.data).toMatchObject({ status: "INITIATED", initialized_amount: 10 });
    expect(transaction.body.meta).toEqual({ medusa_session_id: session.id, medusa_amount: "10.00" });

    await customerPays(session.data.paygate_id);
    const [orderId] = await until("the order", async () => ((await ordersOf(cartId)).length > 0 ? ordersOf(cartId) : undefined));
    const placed = await order(orderId as string);
    expect(placed).toMatchObject({ status: "pending", payment_status: "captured" });
    const payment = placed.payment_collections[0]?.payments[0];
    expect(payment).toMatchObject({
      provider_id: "pp_paygate_paygate",
      data: { paygate_status: "SUCCESSFUL", paygate_state: "paid", paygate_excess: null },
    });
    expect(payment?.captured_at).not.toBeNull();
    paidCartId = cartId;
    paidTransactionId = session.data.paygate_id;
    paidSessionId = session.id;
  });

  it("a repeated delivery of payment.received completes the order once", async () => {
    const received = (await deliveries()).find((d) => d.event.type === "payment.received" && d.status === "succeeded");
    expect(received, "the first payment.received delivery").toBeDefined();
    const redelivered = await paygateApi("POST", `/v1/webhook_deliveries/${received?.id}/redeliver`);
    expect(redelivered.status, JSON.stringify(redelivered.body)).toBe(202);
    expect(redelivered.body.data).toMatchObject({ status: "pending", attempts: 0 });
    await until("the delivery made again", async () => {
      const again = (await deliveries()).find((d) => d.id === received?.id);
      return again && again.attempts >= 1 && again.status === "succeeded" ? again : undefined;
    });
    // Both deliveries went through Medusa's payment processing; the second changed nothing.
    const processed = medusaLog.join("").match(/paygate: captured for payment session \S+/g) ?? [];
    expect(processed.filter((line) => line.endsWith(paidSessionId))).toHaveLength(2);
    const orders = await ordersOf(paidCartId);
    expect(orders).toHaveLength(1);
    const placed = await order(orders[0] as string);
    expect(placed.payment_collections[0]?.payments).toHaveLength(1);
    expect(placed.payment_status).toBe("captured");
  });

  it("a refund from the Admin API becomes a paygate refund with a claim link", async () => {
    const [orderId] = await ordersOf(paidCartId);
    const payment = (await order(orderId as string)).payment_collections[0]?.payments[0];
    const refunded = await medusaAdmin("POST", `/admin/payments/${payment?.id}/refund`, { amount: 4 });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    const refunds = await paygateApi("GET", `/v1/transaction/${paidTransactionId}/refunds`);
    expect(refunds.status).toBe(200);
    const list = refunds.body.data as { state: string; fiat_amount: string; amount_kind: string }[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ state: "pending", amount_kind: "custom" });
    const after = (await order(orderId as string)).payment_collections[0]?.payments[0];
    const kept = (after?.data.paygate_refunds ?? []) as { refund_url: string | null; fiat_amount: string }[];
    expect(kept).toHaveLength(1);
    expect(kept[0]?.fiat_amount).toBe("4.00");
    expect(kept[0]?.refund_url).toMatch(/\/refund\//);
    expect(after?.refunds.map((r) => Number(r.amount))).toEqual([4]);
  });

  it("an underpaid checkout is not authorized (the storefront's completion refused, no order) until the rest arrives", async () => {
    const { cartId, session } = await cartWithPaygateSession("underpaid@example.com");
    const paid = await customerPays(session.data.paygate_id, (owed) => (Number(owed) / 2).toFixed(8));
    expect(paid).toMatchObject({ status: "PENDING", meta: { payment: { state: "underpaid" } } });
    const completed = await store("POST", `/store/carts/${cartId}/complete`);
    expect(completed).toEqual({
      status: 400,
      body: { type: "not_allowed", message: `Session: ${session.id} was not authorized with the provider.` },
    });
    expect(await ordersOf(cartId)).toEqual([]);
    expect((await sessionsOf(cartId))[0]?.status).toBe("requires_more");

    // The customer sends the rest in time: payment.received, and the webhook completes the cart.
    const rest = await paygateApi("POST", `/v1/test_helpers/transaction/${session.data.paygate_id}/payment`, {});
    expect(rest.body.data).toMatchObject({ status: "SUCCESSFUL" });
    const [orderId] = await until("the order", async () => ((await ordersOf(cartId)).length > 0 ? ordersOf(cartId) : undefined));
    expect((await order(orderId as string)).payment_status).toBe("captured");
  });

  it("an overpaid checkout is authorized and captured, the excess noted on the payment", async () => {
    const { cartId, session } = await cartWithPaygateSession("overpaid@example.com");
    await customerPays(session.data.paygate_id, (owed) => (Number(owed) + 0.001).toFixed(8));
    const [orderId] = await until("the order", async () => ((await ordersOf(cartId)).length > 0 ? ordersOf(cartId) : undefined));
    const placed = await order(orderId as string);
    expect(placed.payment_status).toBe("captured");
    expect(placed.payment_collections[0]?.payments[0]?.data).toMatchObject({ paygate_state: "overpaid", paygate_excess: "0.001" });
  });

  it("an expired checkout cancels its session, and makes no order", async () => {
    const { cartId, session } = await cartWithPaygateSession("expired@example.com");
    const expired = await paygateApi("POST", `/v1/test_helpers/transaction/${session.data.paygate_id}/expire`);
    expect(expired.status, JSON.stringify(expired.body)).toBe(200);
    await until("the session cancelled", async () => ((await sessionsOf(cartId))[0]?.status === "canceled" ? true : undefined));
    expect(await ordersOf(cartId)).toEqual([]);
  });

  it("an order paid with another provider is never cancelled by paygate's expiry", async () => {
    const { cartId, collectionId, session } = await cartWithPaygateSession("manual@example.com");
    // The customer leaves paygate's checkout and pays with the shop's manual provider instead.
    const manual = await store("POST", `/store/payment-collections/${collectionId}/payment-sessions`, { provider_id: "pp_system_default" });
    expect(manual.status, JSON.stringify(manual.body)).toBe(200);
    const completed = await store("POST", `/store/carts/${cartId}/complete`);
    expect(completed.body.type, JSON.stringify(completed.body)).toBe("order");
    const orderId = (completed.body.order as { id: string }).id;
    const before = (await deliveries()).length;
    const expired = await paygateApi("POST", `/v1/test_helpers/transaction/${session.data.paygate_id}/expire`);
    expect(expired.status).toBe(200);
    const abandoned = await until("payment.abandoned delivered", async () => {
      const all = await deliveries();
      return all.length > before && all[0]?.event.type === "payment.abandoned" && all[0].status === "succeeded" ? all[0] : undefined;
    });
    expect(abandoned.status_code).toBe(200);
    const kept = await order(orderId);
    expect(kept).toMatchObject({ status: "pending", payment_status: "authorized" });
    expect(kept.payment_collections[0]?.payments[0]?.provider_id).toBe("pp_system_default");
  });

  it("a captured session is never cancelled, even by a genuine payment.abandoned for it", async () => {
    const [captured] = await sessionsOf(paidCartId);
    const event = {
      event: "payment.abandoned",
      data: { transaction: { reference: "bq_x", status: "ABANDONED", meta: { medusa_session_id: captured?.id, medusa_amount: "10.00" } } },
    };
    const answer = await postHook(JSON.stringify(event), paygate.merchant.webhookSecret);
    expect(answer).toEqual({ status: 200, body: { received: true, action: "kept" } });
    expect((await sessionsOf(paidCartId))[0]?.status).toBe("authorized");
    expect((await order((await ordersOf(paidCartId))[0] as string)).payment_status).not.toBe("canceled");
  });

  it("a session paygate cannot take is refused with the reason: no e-mail for a guest, a currency other than USD or NGN, paygate's refusal", async () => {
    const usd = await cartToPay(seed.region_id, "noemail@example.com");
    const noEmail = await store("POST", `/store/payment-collections/${usd.collectionId}/payment-sessions`, { provider_id: "pp_paygate_paygate" });
    expect(noEmail).toEqual({
      status: 400,
      body: { type: "invalid_data", message: "paygate: the customer's e-mail is required (a signed-in customer, or data.email)" },
    });
    const eur = await cartToPay(seed.eur_region_id, "eur@example.com");
    const euros = await store("POST", `/store/payment-collections/${eur.collectionId}/payment-sessions`, {
      provider_id: "pp_paygate_paygate",
      data: { email: "eur@example.com" },
    });
    expect(euros).toEqual({ status: 400, body: { type: "invalid_data", message: "paygate: the currency EUR is not supported (USD or NGN)" } });
    // paygate's own refusal, passed on: a return URL it does not take.
    const refused = await store("POST", `/store/payment-collections/${usd.collectionId}/payment-sessions`, {
      provider_id: "pp_paygate_paygate",
      data: { email: "noemail@example.com", return_url: "ftp://shop.example.com/back" },
    });
    expect(refused).toEqual({
      status: 400,
      body: { type: "invalid_data", message: "paygate: Validation Error (return_url: return URLs must use http or https (got ftp:))" },
    });
  });

  it("a genuine event of a transaction the plugin did not make is answered 200 and ignored", async () => {
    const event = { event: "payment.received", data: { transaction: { reference: "bq_other", status: "SUCCESSFUL", meta: { order_id: 42 } } } };
    expect(await postHook(JSON.stringify(event), paygate.merchant.webhookSecret)).toEqual({
      status: 200,
      body: { received: true, action: "ignored" },
    });
  });

  it("a webhook with a bad signature is refused with 401, and changes nothing", async () => {
    const [captured] = await sessionsOf(paidCartId);
    const event = JSON.stringify({
      event: "payment.abandoned",
      data: { transaction: { reference: "bq_x", meta: { medusa_session_id: captured?.id, medusa_amount: "10.00" } } },
    });
    const forged = await postHook(event, `whsec_${randomBytes(24).toString("base64")}`);
    expect(forged).toEqual({ status: 401, body: { message: "paygate: the webhook signature is invalid (No matching signature found)" } });
    const unsigned = await call(`${medusaUrl}/hooks/paygate`, "POST", {}, JSON.parse(event));
    expect(unsigned).toEqual({ status: 401, body: { message: "paygate: the webhook signature is invalid (Missing required headers)" } });
    expect((await sessionsOf(paidCartId))[0]?.status).toBe("authorized");
  });
});

/** POSTs `body` to the plugin's route, signed with `secret` as paygate signs (Standard Webhooks). */
async function postHook(body: string, secret: string): Promise<{ status: number; body: Json }> {
  const id = `evt_${randomBytes(8).toString("hex")}`;
  const timestamp = new Date();
  const response = await fetch(`${medusaUrl}/hooks/paygate`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, timestamp, body),
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as Json };
}

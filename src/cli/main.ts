// `paygate`: the operator's stand-in for a merchant dashboard. Prints what it did; --json for scripts.
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.ts";
import { createMerchant, createPaymentLink, MerchantInputError, updateMerchant, type KybStatus, type WalletSetting, type WebhookUrls } from "../core/merchants/merchants.ts";
import { cryptoBySlug, cryptoById, CRYPTO_CURRENCIES } from "../core/money/currencies.ts";
import { listTestRates, parseTestRate, setTestRate, TestRateInputError } from "../rails/prices/test-rates.ts";
import { createLogger, lineLogger } from "../logging.ts";
import { startRuntime, type Runtime } from "../runtime.ts";
import { listEvents, type EventFilter } from "../webhooks/delivery-store.ts";

const USAGE = `Usage: paygate <command> [options]

Commands:
  merchant create --name NAME [--webhook-url URL] [--test-webhook-url URL]
                  [--kyb none|pending|verified|rejected] [--json]
      Create a merchant with test and live keys and test-network wallets for every currency.
      Secrets are printed once; store them now. --webhook-url receives live-mode events (https on a
      public address); --test-webhook-url receives test-mode events (http://127.0.0.1:… is fine).
  merchant update ID [--active true|false] [--webhook-url URL|""] [--test-webhook-url URL|""]
                     [--kyb STATUS] [--wallet CURRENCY=EXTENDED_PUBLIC_KEY ...] [--mode live|test] [--json]
      Change a merchant ("" removes a URL). --wallet sets the wallet that receives CURRENCY (${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")})
      in --mode (default live); give the account-level extended public key, never a private key.
  payment-link create --merchant ID [--live] [--json]
      Create a payment link (pl_…) for test mode, or live mode with --live.
  test-rates list [--json]
      Show the rate test mode prices each pair at: set by an operator, or the default.
  test-rates set CRYPTO FIAT RATE [--json]
      Set test mode's price of one CRYPTO (${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")}) in FIAT (USD, NGN):
      RATE units of FIAT per coin, a positive decimal. Applies to the next test initiate.
  worker
      Run the background jobs until stopped (Ctrl-C): webhook delivery, checkout expiry and the
      payment watcher. The service runs them too unless PAYGATE_WEBHOOK_DISPATCHER,
      PAYGATE_EXPIRY_SCHEDULER or PAYGATE_PAYMENT_WATCHER is false; any number of workers may share
      one PostgreSQL database.
  webhooks list [--merchant ID] [--state pending|delivered|failed|skipped] [--transaction ID]
                [--limit N] [--json]
      Recent events, newest first, with their delivery attempts.
  webhooks redeliver EVENT_ID [--json]
      Send an event again now (same webhook-id); if that fails, it is retried on the schedule.

Environment: DATABASE_URL, PAYGATE_DATA_DIR, PAYGATE_ENCRYPTION_KEY (see README).`;

class UsageError extends Error {}

type Out = { json: boolean };

async function run(argv: string[]): Promise<void> {
  const [group, action, ...rest] = argv;
  if (!group || group === "help" || group === "--help" || group === "-h") {
    console.log(USAGE);
    return;
  }
  const command = group === "worker" ? "worker" : `${group} ${action ?? ""}`.trim();
  switch (command) {
    case "merchant create":
      return merchantCreate(rest);
    case "merchant update":
      return merchantUpdate(rest);
    case "payment-link create":
      return paymentLinkCreate(rest);
    case "test-rates list":
      return testRatesList(rest);
    case "test-rates set":
      return testRatesSet(rest);
    case "worker":
      return worker([action ?? "", ...rest].filter((a) => a !== ""));
    case "webhooks list":
      return webhooksList(rest);
    case "webhooks redeliver":
      return webhooksRedeliver(rest);
    default:
      throw new UsageError(`Unknown command '${command}'.`);
  }
}

type OptionSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

function parse(args: string[], options: OptionSpec, positionals = 0): { values: Values; positionals: string[] } {
  try {
    const parsed = parseArgs({ args, options: { ...options, json: { type: "boolean" } }, allowPositionals: positionals > 0, strict: true });
    if (parsed.positionals.length !== positionals) {
      throw new UsageError(`Expected ${positionals} argument(s), got ${parsed.positionals.length}.`);
    }
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

const KYB = ["none", "pending", "verified", "rejected"] as const;
function kybOption(value: unknown): KybStatus | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !KYB.includes(value as (typeof KYB)[number])) {
    throw new UsageError(`--kyb must be one of ${KYB.join(", ")}; got '${String(value)}'.`);
  }
  return value.toUpperCase() as KybStatus;
}

function merchantId(text: string | undefined): number {
  if (!text || !/^\d+$/.test(text)) throw new UsageError(`A merchant id is a whole number; got '${text ?? ""}'.`);
  return Number(text);
}

async function withRuntime<T>(work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const runtime = await startRuntime(loadConfig(), { log: (line) => console.error(line) });
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

async function merchantCreate(args: string[]): Promise<void> {
  const { values } = parse(args, {
    name: { type: "string" },
    "webhook-url": { type: "string" },
    "test-webhook-url": { type: "string" },
    kyb: { type: "string" },
  });
  if (typeof values.name !== "string" || !values.name.trim()) throw new UsageError("--name is required.");
  const kybStatus = kybOption(values.kyb);
  const merchant = await withRuntime((rt) =>
    createMerchant(rt.gateway.deps, { name: values.name as string, ...webhookUrlOptions(values), kybStatus }),
  );
  if (values.json) return print(merchant);
  console.log(`Created merchant ${merchant.id} "${merchant.name}" (KYB: ${(kybStatus ?? "NONE").toLowerCase()}).
Test-network wallets are set up for ${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")}; test mode works now.

  test public key   ${merchant.testPublicKey}
  test secret key   ${merchant.testSecretKey}
  live public key   ${merchant.livePublicKey}
  live secret key   ${merchant.liveSecretKey}
  webhook secret    ${merchant.webhookSecret}

Secret keys and the webhook secret are shown only now; store them safely.
Live mode needs KYB "verified" and a wallet per currency: paygate merchant update ${merchant.id} --kyb verified --wallet BTC=xpub…`);
}

async function merchantUpdate(args: string[]): Promise<void> {
  const { values, positionals } = parse(
    args,
    {
      active: { type: "string" },
      "webhook-url": { type: "string" },
      "test-webhook-url": { type: "string" },
      kyb: { type: "string" },
      wallet: { type: "string", multiple: true },
      mode: { type: "string" },
    },
    1,
  );
  const id = merchantId(positionals[0]);
  let active: boolean | undefined;
  if (values.active !== undefined) {
    if (values.active !== "true" && values.active !== "false") throw new UsageError(`--active must be true or false; got '${String(values.active)}'.`);
    active = values.active === "true";
  }
  const mode = (values.mode as string | undefined) ?? "live";
  if (mode !== "live" && mode !== "test") throw new UsageError(`--mode must be live or test; got '${mode}'.`);
  const wallets: WalletSetting[] = ((values.wallet as string[] | undefined) ?? []).map((spec) => {
    const eq = spec.indexOf("=");
    const name = eq > 0 ? spec.slice(0, eq).trim() : "";
    const key = eq > 0 ? spec.slice(eq + 1).trim() : "";
    const currency = cryptoBySlug(name.toUpperCase()) ?? (/^\d+$/.test(name) ? cryptoById(Number(name)) : undefined);
    if (!currency || !key) {
      throw new UsageError(`--wallet takes CURRENCY=EXTENDED_PUBLIC_KEY with CURRENCY one of ${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")}; got '${spec}'.`);
    }
    return { currency, isLive: mode === "live", extendedPublicKey: key };
  });
  const urls = webhookUrlOptions(values);
  const input = { active, kybStatus: kybOption(values.kyb), ...urls, wallets };
  if (input.active === undefined && input.kybStatus === undefined && Object.keys(urls).length === 0 && wallets.length === 0) {
    throw new UsageError("Nothing to change: give --active, --webhook-url, --test-webhook-url, --kyb or --wallet.");
  }
  const merchant = await withRuntime((rt) => updateMerchant(rt.gateway.deps, id, input));
  const walletRows = merchant.paymentProcessors.map((p) => ({
    currency: p.currency.slug,
    mode: p.isLive ? "live" : "test",
    extendedPublicKey: p.wallet.extendedPublicKey,
    nextIndex: p.wallet.nextIndex,
  }));
  const summary = {
    id: merchant.id,
    name: merchant.name,
    active: merchant.active,
    kyb: merchant.kybStatus.toLowerCase(),
    liveWebhookUrl: merchant.liveWebhookUrl,
    testWebhookUrl: merchant.testWebhookUrl,
    wallets: walletRows,
  };
  if (values.json) return print(summary);
  console.log(`Updated merchant ${summary.id} "${summary.name}": active=${summary.active}, KYB ${summary.kyb}.`);
  console.log(`Webhooks: live ${summary.liveWebhookUrl ?? "(none)"}, test ${summary.testWebhookUrl ?? "(none)"}.`);
  console.log("Wallets:");
  for (const w of walletRows) console.log(`  ${w.mode.padEnd(4)} ${w.currency.padEnd(4)} ${w.extendedPublicKey} (next index ${w.nextIndex})`);
}

async function paymentLinkCreate(args: string[]): Promise<void> {
  const { values } = parse(args, { merchant: { type: "string" }, live: { type: "boolean" } });
  const id = merchantId(values.merchant as string | undefined);
  const isLive = values.live === true;
  const link = await withRuntime((rt) => createPaymentLink(rt.gateway.deps.db, id, isLive));
  if (values.json) return print(link);
  console.log(`Created ${isLive ? "live" : "test"} payment link ${link.slug} for merchant ${id}.`);
}

async function testRatesList(args: string[]): Promise<void> {
  const { values } = parse(args, {});
  const rates = await withRuntime((rt) => listTestRates(rt.database.db));
  if (values.json) return print({ rates });
  console.log("Test-mode rates (fiat per coin):");
  for (const r of rates) {
    const origin = r.origin === "set" ? `set ${r.updatedAt}` : "default";
    console.log(`  ${r.crypto.padEnd(4)} ${r.fiat.padEnd(3)} ${r.rate.padStart(16)}  ${origin}`);
  }
}

async function testRatesSet(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {}, 3);
  const [crypto = "", fiat = "", rate = ""] = positionals;
  try {
    parseTestRate({ crypto, fiat, rate }); // bad arguments are a usage error, before any database work
  } catch (error) {
    if (error instanceof TestRateInputError) throw new UsageError(error.message);
    throw error;
  }
  const change = await withRuntime((rt) => setTestRate(rt.database.db, { crypto, fiat, rate }));
  if (values.json) return print(change);
  const before = change.previous ? `${change.previous.rate} (${change.previous.origin})` : "no rate";
  console.log(`Set the test rate of ${change.crypto}/${change.fiat} to ${change.rate} ${change.fiat} per ${change.crypto}; it was ${before}.`);
}

/** --webhook-url is the live URL, --test-webhook-url the test one; "" removes one. */
function webhookUrlOptions(values: Values): WebhookUrls {
  const urls: WebhookUrls = {};
  const live = values["webhook-url"];
  const test = values["test-webhook-url"];
  if (typeof live === "string") urls.liveWebhookUrl = live || null;
  if (typeof test === "string") urls.testWebhookUrl = test || null;
  return urls;
}

async function worker(args: string[]): Promise<void> {
  parse(args, {});
  const config = loadConfig();
  // A worker is part of the service: its log is the service's JSON log.
  const logger = createLogger({ level: config.logLevel });
  const runtime = await startRuntime(config, { log: lineLogger(logger) });
  const where = config.database.kind === "postgres" ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite in ${config.database.dataDir}`;
  logger.info(`paygate worker: delivering webhooks, closing expired checkouts and watching payment addresses on ${where}. Ctrl-C stops it after the work under way.`);
  runtime.startBackgroundJobs();
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  logger.info("Stopping: finishing the attempts under way.");
  await runtime.close();
  logger.info("Stopped.");
}

const STATES = ["pending", "delivered", "failed", "skipped"] as const;

async function webhooksList(args: string[]): Promise<void> {
  const { values } = parse(args, {
    merchant: { type: "string" },
    state: { type: "string" },
    transaction: { type: "string" },
    limit: { type: "string" },
  });
  const state = values.state as string | undefined;
  if (state !== undefined && !STATES.includes(state as (typeof STATES)[number])) {
    throw new UsageError(`--state must be one of ${STATES.join(", ")}; got '${state}'.`);
  }
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError(`--limit must be a whole number from 1 to 1000; got '${String(values.limit)}'.`);
  const filter: EventFilter = {
    limit,
    ...(values.merchant === undefined ? {} : { merchantId: merchantId(values.merchant as string) }),
    ...(state === undefined ? {} : { state: state.toUpperCase() as EventFilter["state"] }),
    ...(values.transaction === undefined ? {} : { transactionId: values.transaction as string }),
  };
  const events = await withRuntime((rt) => listEvents(rt.database.db, filter));
  const rows = events.map((e) => ({
    id: e.id,
    type: e.type,
    merchantId: e.merchantId,
    transactionId: e.transactionId,
    reference: e.transaction.reference,
    mode: e.isLive ? "live" : "test",
    state: e.state.toLowerCase(),
    attemptCount: e.attemptCount,
    nextAttemptAt: e.state === "PENDING" ? e.nextAttemptAt.toISOString() : null,
    deliveredAt: e.deliveredAt?.toISOString() ?? null,
    createdAt: e.createdAt.toISOString(),
    attempts: e.attempts.map((a) => ({
      attemptedAt: a.attemptedAt.toISOString(),
      url: a.url,
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      succeeded: a.succeeded,
      error: a.error,
      responseBody: a.responseBody,
      trigger: a.trigger,
    })),
  }));
  if (values.json) return print({ events: rows });
  if (rows.length === 0) {
    console.log("No webhook events match.");
    return;
  }
  for (const e of rows) {
    const last = e.attempts[0];
    const lastText = last ? `last ${last.statusCode ?? last.error} in ${last.latencyMs} ms` : "no attempt";
    const when = e.nextAttemptAt ? `, next ${e.nextAttemptAt}` : "";
    console.log(`${e.id}  ${e.type.padEnd(17)} ${e.mode} ${e.reference}  ${e.state}, ${e.attemptCount} attempt(s), ${lastText}${when}`);
  }
}

async function webhooksRedeliver(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {}, 1);
  const id = positionals[0] ?? "";
  if (!/^evt_[0-9A-Za-z]+$/.test(id)) throw new UsageError(`An event id looks like evt_…; got '${id}'.`);
  const report = await withRuntime((rt) => rt.webhooks.redeliver(id));
  if (!report) throw new MerchantInputError(`No webhook event with id ${id}; list them with: paygate webhooks list`);
  const result = {
    id: report.eventId,
    type: report.type,
    state: report.outcome.state.toLowerCase(),
    statusCode: report.attempt?.statusCode ?? null,
    error: report.attempt?.error ?? null,
    nextAttemptAt: report.outcome.state === "PENDING" ? report.outcome.nextAttemptAt.toISOString() : null,
  };
  if (values.json) return print(result);
  if (report.outcome.state === "DELIVERED") {
    console.log(`Delivered ${result.type} ${result.id} (HTTP ${result.statusCode}).`);
  } else if (report.outcome.state === "SKIPPED") {
    console.log(`Not sent: the merchant has no webhook URL for this event's mode. Set one with paygate merchant update.`);
  } else if (report.attempt === null) {
    console.log(`${result.id} is queued; a running dispatcher is sending it.`);
  } else {
    console.log(`Attempt failed (${result.statusCode === null ? result.error : `HTTP ${result.statusCode}`}); next retry at ${result.nextAttemptAt}.`);
  }
}

function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`paygate: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof MerchantInputError || error instanceof ConfigError || (error instanceof Error && error.name === "EmbeddedDatabaseBusyError")) {
      console.error(`paygate: ${error.message}`);
      process.exit(1);
    }
    console.error("paygate: unexpected error:", error);
    process.exit(1);
  },
);

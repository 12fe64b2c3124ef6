// What each `paygate` command does once its arguments are parsed (src/cli/run.ts parses them).
// Everything goes through the CliContext: its environment, its output, its stop signal; nothing here
// reads process.env, writes to the console or exits, so a command also runs inside a test process.
import { loadConfig, type Config } from "../config.ts";
import { isDashboardRole } from "../core/access/roles.ts";
import { DASHBOARD_ROLES } from "../core/records/dashboard.ts";
import { errors, PaygateError } from "../core/errors.ts";
import { KYB_STATUSES, type KybStatus } from "../core/records/kyb.ts";
import { OLD_KEY_OVERLAPS, type OldKeyExpiry } from "../core/merchants/api-keys.ts";
import type { DefaultNetworkSetting, WalletSetting, WebhookUrls } from "../core/merchants/merchants.ts";
import type { Mode } from "../core/mode.ts";
import { fundsHeldCsv } from "../core/transactions/funds-held.ts";
import type { PrivateTargets } from "../core/private-targets.ts";
import { checkWebhookUrl } from "../core/merchants/webhook-url.ts";
import { cryptoById, cryptoBySlug, CRYPTO_CURRENCIES } from "../core/money/currencies.ts";
import { allowedNetworksText, defaultNetworkOf, isNetworkSlug } from "../core/networks.ts";
import type { CryptoSlug } from "../core/money/currencies.ts";
import { parseTestRate } from "../core/test-rates.ts";
import type { EventFilter } from "../core/stores/webhook-events.ts";
// The runtime (Prisma, the database drivers, the chain and wallet rails) and the logger are loaded
// when a command opens the database, not at start: `paygate --help` and a bad command line answer
// without them (docs/benchmarks.md, CLI start-up).
import type { Runtime } from "../runtime.ts";

/** Where a command's output goes: process.stdout, or a test's buffer. */
export interface CliOutput {
  write(text: string): unknown;
  /** Width of a terminal, for wrapping help; 80 when absent. */
  columns?: number;
}

export interface CliContext {
  env: NodeJS.ProcessEnv;
  stdout: CliOutput;
  stderr: CliOutput;
  /** Standard input, for `user create --password-stdin` (process.stdin for the process). */
  stdin?: AsyncIterable<string | Buffer>;
  /** Stops `paygate worker`. Without it, SIGINT or SIGTERM does. */
  signal?: AbortSignal;
  /** The running service's runtime and configuration, when it runs the command for a CLI (service-socket.ts). */
  service?: { runtime: Runtime; config: Config };
}

/** Bad arguments: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export interface JsonOption {
  json?: boolean;
}

export function say(ctx: CliContext, text: string): void {
  ctx.stdout.write(`${text}\n`);
}

export function print(ctx: CliContext, value: unknown): void {
  say(ctx, JSON.stringify(value, null, 2));
}

function kybOption(value: string | undefined): KybStatus | undefined {
  if (value === undefined) return undefined;
  const status = KYB_STATUSES.find((s) => s.toLowerCase() === value);
  if (!status) throw new UsageError(`--kyb must be one of ${KYB_STATUSES.map((s) => s.toLowerCase()).join(", ")}; got '${value}'.`);
  return status;
}

function merchantId(text: string | undefined): number {
  if (!text || !/^\d+$/.test(text)) throw new UsageError(`A merchant id is a whole number; got '${text ?? ""}'.`);
  return Number(text);
}

/** Opens the configured database for one command and closes it after, whatever happens. */
export async function withRuntime<T>(ctx: CliContext, work: (runtime: Runtime, config: Config) => Promise<T>): Promise<T> {
  if (ctx.service) return work(ctx.service.runtime, ctx.service.config); // the service's own, left open
  const config = loadConfig(ctx.env);
  const { startRuntime } = await import("../runtime.ts");
  const runtime = await startRuntime(config, { log: (line) => ctx.stderr.write(`${line}\n`) });
  try {
    return await work(runtime, config);
  } finally {
    await runtime.close();
  }
}

interface WebhookUrlOptions {
  webhookUrl?: string;
  testWebhookUrl?: string;
}

/** --webhook-url is the live URL, --test-webhook-url the test one; "" removes one. */
function webhookUrls(options: WebhookUrlOptions): WebhookUrls {
  const urls: WebhookUrls = {};
  if (options.webhookUrl !== undefined) urls.liveWebhookUrl = options.webhookUrl || null;
  if (options.testWebhookUrl !== undefined) urls.testWebhookUrl = options.testWebhookUrl || null;
  return urls;
}

/**
 * A --webhook-url refused only for being a live URL (http, or a private or local host) would be a fine
 * test URL: most often an operator setting up a local receiver. The refusal then says where it goes.
 */
async function withWebhookUrlHint<T>(liveUrl: string | undefined, targets: PrivateTargets, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (
      error instanceof PaygateError &&
      liveUrl &&
      !checkWebhookUrl(liveUrl, "live", { allowPrivate: targets.live, allowlist: targets.allowlist }).ok &&
      checkWebhookUrl(liveUrl, "test", { allowPrivate: targets.test, allowlist: targets.allowlist }).ok
    ) {
      throw new PaygateError(
        error.code,
        `${error.message}\n--webhook-url is for live mode only. --test-webhook-url takes local test URLs ` +
          `(e.g. http://127.0.0.1:4000/webhooks), for test-mode events: --test-webhook-url ${liveUrl}`,
        error.reason,
        error.errors,
      );
    }
    throw error;
  }
}

export interface MerchantCreateOptions extends JsonOption, WebhookUrlOptions {
  name?: string;
  kyb?: string;
  /** The merchant's first dashboard user, an owner with a one-time sign-in link (issue 28). */
  ownerEmail?: string;
}

export async function merchantCreate(ctx: CliContext, options: MerchantCreateOptions): Promise<void> {
  const name = options.name;
  if (name === undefined || !name.trim()) throw new UsageError("--name is required.");
  const kybStatus = kybOption(options.kyb);
  const { merchant, owner, ownerError } = await withRuntime(ctx, async (rt) => {
    const merchant = await withWebhookUrlHint(options.webhookUrl, rt.gateway.privateWebhookTargets, () =>
      rt.gateway.operator.createMerchant({ name, ...webhookUrls(options), kybStatus }),
    );
    if (options.ownerEmail === undefined) return { merchant, owner: null, ownerError: null };
    try {
      const owner = await rt.gateway.operator.createDashboardUser({ merchantId: merchant.id, email: options.ownerEmail, role: "owner" });
      return { merchant, owner, ownerError: null };
    } catch (error) {
      // The merchant's secrets are shown only now: print them whatever became of its owner.
      if (error instanceof PaygateError) return { merchant, owner: null, ownerError: error };
      throw error;
    }
  });
  const ownerView = owner && { ...owner.user, signInUrl: owner.signInUrl, signInUrlExpiresAt: owner.signInUrlExpiresAt };
  if (options.json) print(ctx, options.ownerEmail === undefined ? merchant : { ...merchant, owner: ownerView });
  else sayMerchantCreated(ctx, merchant, kybStatus, owner);
  if (ownerError) {
    ctx.stderr.write(
      `paygate: merchant ${merchant.id} was created, but not its owner; add one with: paygate user create --merchant ${merchant.id} --email EMAIL --role owner\n`,
    );
    throw ownerError;
  }
}

type CreatedMerchant = Awaited<ReturnType<Runtime["gateway"]["operator"]["createMerchant"]>>;
type CreatedOwner = Awaited<ReturnType<Runtime["gateway"]["operator"]["createDashboardUser"]>>;

function sayMerchantCreated(ctx: CliContext, merchant: CreatedMerchant, kybStatus: KybStatus | undefined, owner: CreatedOwner | null): void {
  say(
    ctx,
    `Created merchant ${merchant.id} "${merchant.name}" (KYB: ${(kybStatus ?? "NONE").toLowerCase()}).
Test-network wallets are set up for ${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")}; test mode works now.

  test public key   ${merchant.testPublicKey}
  test secret key   ${merchant.testSecretKey}
  live public key   ${merchant.livePublicKey}
  live secret key   ${merchant.liveSecretKey}
  webhook secret    ${merchant.webhookSecret}

Secret keys and the webhook secret are shown only now; store them safely.
Live mode needs KYB "verified" and a wallet per currency: paygate merchant update ${merchant.id} --kyb verified --wallet BTC=xpub…`,
  );
  if (owner?.signInUrl) {
    say(
      ctx,
      `\nOwner ${owner.user.email}: a one-time sign-in link, shown once; it sets the password until ${owner.signInUrlExpiresAt?.toISOString()}:`,
    );
    say(ctx, `  ${owner.signInUrl}`);
  }
}

export interface MerchantUpdateOptions extends JsonOption, WebhookUrlOptions {
  active?: string;
  kyb?: string;
  wallet?: string[];
  defaultNetwork?: string[];
  mode?: string;
}

export async function merchantUpdate(ctx: CliContext, idText: string | undefined, options: MerchantUpdateOptions): Promise<void> {
  const id = merchantId(idText);
  let active: boolean | undefined;
  if (options.active !== undefined) {
    if (options.active !== "true" && options.active !== "false") throw new UsageError(`--active must be true or false; got '${options.active}'.`);
    active = options.active === "true";
  }
  const mode = options.mode ?? "live";
  if (mode !== "live" && mode !== "test") throw new UsageError(`--mode must be live or test; got '${mode}'.`);
  const wallets: WalletSetting[] = (options.wallet ?? []).map((spec) => {
    const eq = spec.indexOf("=");
    // CURRENCY or CURRENCY@NETWORK (USDT@bsc): a coin paid on several networks has a wallet on each.
    const [name = "", on] = (eq > 0 ? spec.slice(0, eq).trim() : "").split("@", 2);
    const key = eq > 0 ? spec.slice(eq + 1).trim() : "";
    const currency = cryptoBySlug(name.toUpperCase()) ?? (/^\d+$/.test(name) ? cryptoById(Number(name)) : undefined);
    if (!currency || !key) {
      throw new UsageError(
        `--wallet takes CURRENCY=EXTENDED_PUBLIC_KEY or CURRENCY@NETWORK=EXTENDED_PUBLIC_KEY with CURRENCY one of ${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")}; got '${spec}'.`,
      );
    }
    if (on === undefined) return { currency, isLive: mode === "live", extendedPublicKey: key };
    const network = on.trim().toLowerCase();
    if (!isNetworkSlug(network)) {
      throw new UsageError(`--wallet ${name}@${on}: unknown network; ${currency.slug} is paid on ${allowedNetworksText(currency.slug)}.`);
    }
    return { currency, network, isLive: mode === "live", extendedPublicKey: key };
  });
  const defaultNetworks: DefaultNetworkSetting[] = (options.defaultNetwork ?? []).map((spec) => {
    const [name = "", network = ""] = spec.split("=", 2).map((part) => part.trim());
    const currency = cryptoBySlug(name.toUpperCase()) ?? (/^\d+$/.test(name) ? cryptoById(Number(name)) : undefined);
    if (!currency || !network) {
      throw new UsageError(
        `--default-network takes CURRENCY=NETWORK with CURRENCY one of ${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")}; got '${spec}'.`,
      );
    }
    return { currency, network: network.toLowerCase(), isLive: mode === "live" };
  });
  const urls = webhookUrls(options);
  const input = { active, kybStatus: kybOption(options.kyb), ...urls, wallets, defaultNetworks };
  if (
    input.active === undefined &&
    input.kybStatus === undefined &&
    Object.keys(urls).length === 0 &&
    wallets.length === 0 &&
    defaultNetworks.length === 0
  ) {
    throw new UsageError("Nothing to change: give --active, --webhook-url, --test-webhook-url, --kyb, --wallet or --default-network.");
  }
  const { merchant, defaults } = await withRuntime(ctx, async (rt) => {
    const updated = await withWebhookUrlHint(options.webhookUrl, rt.gateway.privateWebhookTargets, () =>
      rt.gateway.operator.updateMerchant(id, input),
    );
    return { merchant: updated, defaults: await rt.gateway.operator.defaultNetworks(id) };
  });
  const walletRows = merchant.paymentProcessors.map((p) => ({
    // A wallet on a network other than the coin's default names it (USDT@bsc), as --wallet takes it.
    currency: p.network === defaultNetworkOf(p.currency.slug as CryptoSlug) ? p.currency.slug : `${p.currency.slug}@${p.network}`,
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
    /** The network each coin is paid on when an initiate names none (only those set). */
    defaultNetworks: defaults.map((d) => ({ currency: d.currency, mode: d.isLive ? "live" : "test", network: d.network })),
  };
  if (options.json) return print(ctx, summary);
  say(ctx, `Updated merchant ${summary.id} "${summary.name}": active=${summary.active}, KYB ${summary.kyb}.`);
  say(ctx, `Webhooks: live ${summary.liveWebhookUrl ?? "(none)"}, test ${summary.testWebhookUrl ?? "(none)"}.`);
  say(ctx, "Wallets:");
  for (const w of walletRows) say(ctx, `  ${w.mode.padEnd(4)} ${w.currency.padEnd(9)} ${w.extendedPublicKey} (next index ${w.nextIndex})`);
  if (summary.defaultNetworks.length > 0) {
    say(ctx, `Default networks: ${summary.defaultNetworks.map((d) => `${d.mode} ${d.currency} on ${d.network}`).join(", ")}.`);
  }
}

export interface MerchantPricingOptions extends JsonOption {
  spread?: string;
  sources?: string;
}

/** Shows, or with --spread/--sources sets, a merchant's pricing (src/core/merchants/pricing.ts). */
export async function merchantPricing(ctx: CliContext, idText: string | undefined, options: MerchantPricingOptions): Promise<void> {
  const id = merchantId(idText);
  const input = {
    ...(options.spread === undefined ? {} : { spread: options.spread }),
    ...(options.sources === undefined
      ? {}
      : {
          sources: options.sources
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== ""),
        }),
  };
  const changing = Object.keys(input).length > 0;
  const pricing = await withRuntime(ctx, (rt) =>
    changing ? rt.gateway.merchants.setPricing(rt.gateway.access.operator(id), input) : rt.gateway.merchants.pricing(rt.gateway.access.operator(id)),
  );
  if (options.json) return print(ctx, pricing);
  say(ctx, `${changing ? "Updated" : "Pricing of"} merchant ${id}: spread ${pricing.spreadPercent}% (at most ${pricing.spreadBounds.max}%).`);
  say(
    ctx,
    `Price sources: ${pricing.sources.length > 0 ? pricing.sources.join(", ") : "the operator's"} (available: ${pricing.available.join(", ") || "none"}).`,
  );
}

export interface PaymentLinkCreateOptions extends JsonOption {
  merchant?: string;
  live?: boolean;
}

export async function paymentLinkCreate(ctx: CliContext, options: PaymentLinkCreateOptions): Promise<void> {
  if (options.merchant === undefined) throw new UsageError("--merchant ID is required.");
  const id = merchantId(options.merchant);
  const isLive = options.live === true;
  const link = await withRuntime(ctx, (rt) => rt.gateway.merchants.createPaymentLink(rt.gateway.access.operator(id), isLive ? "live" : "test"));
  if (options.json) return print(ctx, link);
  say(ctx, `Created ${isLive ? "live" : "test"} payment link ${link.slug} for merchant ${id}.`);
}

export interface UserCreateOptions extends JsonOption {
  merchant?: string;
  email?: string;
  role?: string;
  passwordStdin?: boolean;
}

export async function userCreate(ctx: CliContext, options: UserCreateOptions): Promise<void> {
  if (options.merchant === undefined) throw new UsageError("--merchant ID is required.");
  if (options.email === undefined) throw new UsageError("--email EMAIL is required.");
  if (options.role === undefined || !isDashboardRole(options.role)) {
    throw new UsageError(`--role must be one of ${DASHBOARD_ROLES.join(", ")}; got '${options.role ?? ""}'.`);
  }
  const id = merchantId(options.merchant);
  const password = options.passwordStdin ? await readPassword(ctx) : undefined;
  const created = await withRuntime(ctx, (rt) =>
    rt.gateway.operator.createDashboardUser({ merchantId: id, email: options.email, role: options.role, password }),
  );
  if (options.json) {
    return print(ctx, { ...created.user, merchantId: id, signInUrl: created.signInUrl, signInUrlExpiresAt: created.signInUrlExpiresAt });
  }
  say(ctx, `Created dashboard user ${created.user.email} (${created.user.id}), ${created.user.role} of merchant ${id}.`);
  if (created.signInUrl) {
    say(ctx, `One-time sign-in link, shown once; it lets the user set a password until ${created.signInUrlExpiresAt?.toISOString()}:`);
    say(ctx, `  ${created.signInUrl}`);
  } else {
    say(ctx, "The user signs in at /dashboard with the password given.");
  }
}

export interface UserResetOptions extends JsonOption {
  email?: string;
}

export async function userResetSecondFactor(ctx: CliContext, options: UserResetOptions): Promise<void> {
  if (options.email === undefined) throw new UsageError("--email EMAIL is required.");
  const reset = await withRuntime(ctx, (rt) => rt.gateway.operator.resetDashboardSecondFactor(options.email));
  if (options.json) return print(ctx, { ...reset, secondFactor: false });
  say(ctx, `Turned off the second factor of ${reset.email} (${reset.userId}), user of merchant ${reset.merchantId}.`);
  say(ctx, "The user signs in with its password alone now, and can set up a new authenticator app on the Security page.");
}

export interface UserNoticesOptions extends UserResetOptions {
  enabled?: string;
}

export async function userEmailNotices(ctx: CliContext, options: UserNoticesOptions): Promise<void> {
  if (options.email === undefined) throw new UsageError("--email EMAIL is required.");
  if (options.enabled === undefined) throw new UsageError("--enabled true|false is required.");
  const set = await withRuntime(ctx, (rt) => rt.gateway.operator.setDashboardUserNotices(options.email, options.enabled));
  if (options.json) return print(ctx, set);
  say(
    ctx,
    set.enabled
      ? `Turned on the e-mail notices of ${set.email} (${set.userId}), user of merchant ${set.merchantId}: payments received, webhook endpoints disabled and unmatched receipts.`
      : `Turned off the e-mail notices of ${set.email} (${set.userId}), user of merchant ${set.merchantId}.`,
  );
}

export interface UserNoticeLanguageOptions extends UserResetOptions {
  locale?: string;
}

export async function userNoticeLanguage(ctx: CliContext, options: UserNoticeLanguageOptions): Promise<void> {
  if (options.email === undefined) throw new UsageError("--email EMAIL is required.");
  if (options.locale === undefined) throw new UsageError("--locale en|fr|es|pt|de|ar is required.");
  const set = await withRuntime(ctx, (rt) => rt.gateway.operator.setDashboardUserNoticeLocale(options.email, options.locale));
  if (options.json) return print(ctx, set);
  say(ctx, `The e-mail notices of ${set.email} (${set.userId}), user of merchant ${set.merchantId}, are now written in ${set.locale}.`);
}

export async function userSignInLink(ctx: CliContext, options: UserResetOptions): Promise<void> {
  if (options.email === undefined) throw new UsageError("--email EMAIL is required.");
  const issued = await withRuntime(ctx, (rt) => rt.gateway.operator.issueDashboardSignInLink(options.email));
  const expires = issued.signInUrlExpiresAt?.toISOString() ?? null;
  if (options.json) return print(ctx, { ...issued.user, signInUrl: issued.signInUrl, signInUrlExpiresAt: expires });
  say(ctx, `New one-time sign-in link for ${issued.user.email} (${issued.user.id}), ${issued.user.role}.`);
  say(ctx, `Shown once; it sets a new password and ends the user's other sessions, until ${expires}:`);
  say(ctx, `  ${issued.signInUrl}`);
}

/** The whole of standard input, less one final line break (what `echo` or a here-string adds). */
async function readPassword(ctx: CliContext): Promise<string> {
  if (!ctx.stdin) throw new UsageError("--password-stdin needs standard input; pipe the password in.");
  let text = "";
  for await (const chunk of ctx.stdin) text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
  return text.replace(/\r?\n$/, "");
}

export async function testRatesList(ctx: CliContext, options: JsonOption): Promise<void> {
  const rates = await withRuntime(ctx, (rt) => rt.gateway.operator.listTestRates());
  if (options.json) return print(ctx, { rates });
  say(ctx, "Test-mode rates (fiat per coin):");
  for (const r of rates) {
    const origin = r.origin === "set" ? `set ${r.updatedAt}` : "default";
    say(ctx, `  ${r.crypto.padEnd(4)} ${r.fiat.padEnd(3)} ${r.rate.padStart(16)}  ${origin}`);
  }
}

export async function testRatesSet(ctx: CliContext, crypto: string, fiat: string, rate: string, options: JsonOption): Promise<void> {
  try {
    parseTestRate({ crypto, fiat, rate }); // bad arguments are a usage error, before any database work
  } catch (error) {
    if (error instanceof PaygateError) throw new UsageError(error.message);
    throw error;
  }
  const change = await withRuntime(ctx, (rt) => rt.gateway.operator.setTestRate({ crypto, fiat, rate }));
  if (options.json) return print(ctx, change);
  const before = change.previous ? `${change.previous.rate} (${change.previous.origin})` : "no rate";
  say(ctx, `Set the test rate of ${change.crypto}/${change.fiat} to ${change.rate} ${change.fiat} per ${change.crypto}; it was ${before}.`);
}

/** Resolves `stopped` when the worker should stop: the context's signal, else SIGINT or SIGTERM. */
function stopRequest(ctx: CliContext): { stopped: Promise<void>; dispose(): void } {
  const signal = ctx.signal;
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = () => {
      dispose();
      resolve();
    };
  });
  const dispose = () => {
    signal?.removeEventListener("abort", stop);
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  };
  if (signal) {
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop);
  } else {
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  }
  return { stopped, dispose };
}

export async function worker(ctx: CliContext): Promise<void> {
  const config = loadConfig(ctx.env);
  const [{ createLogger, lineLogger }, { startRuntime }] = await Promise.all([import("../logging.ts"), import("../runtime.ts")]);
  // A worker is part of the service: its log is the service's JSON log.
  const logger = createLogger({ level: config.logLevel, destination: ctx.stdout });
  // Listening from the start: a Ctrl-C while the database opens, or just after the line below, stops
  // the worker in order rather than killing it. Once stopping, a second one kills it.
  const stop = stopRequest(ctx);
  try {
    const runtime = await startRuntime(config, { log: lineLogger(logger) });
    const where = config.database.kind === "postgres" ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite in ${config.database.dataDir}`;
    logger.info(
      `paygate worker: delivering webhooks, closing expired checkouts and watching payment addresses on ${where}. Ctrl-C stops it after the work under way.`,
    );
    runtime.startBackgroundJobs();
    await stop.stopped;
    logger.info("Stopping: finishing the attempts under way.");
    await runtime.close();
    logger.info("Stopped.");
  } finally {
    stop.dispose();
  }
}

const STATES = ["pending", "delivered", "failed", "skipped"] as const;

export interface WebhooksListOptions extends JsonOption {
  merchant?: string;
  state?: string;
  transaction?: string;
  limit?: string;
}

export async function webhooksList(ctx: CliContext, options: WebhooksListOptions): Promise<void> {
  const state = options.state;
  if (state !== undefined && !STATES.includes(state as (typeof STATES)[number])) {
    throw new UsageError(`--state must be one of ${STATES.join(", ")}; got '${state}'.`);
  }
  const limit = options.limit === undefined ? 50 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new UsageError(`--limit must be a whole number from 1 to 1000; got '${options.limit}'.`);
  const filter: EventFilter = {
    limit,
    ...(options.merchant === undefined ? {} : { merchantId: merchantId(options.merchant) }),
    ...(state === undefined ? {} : { state: state.toUpperCase() as EventFilter["state"] }),
    ...(options.transaction === undefined ? {} : { transactionId: options.transaction }),
  };
  const events = await withRuntime(ctx, (rt) => rt.gateway.operator.listWebhookEvents(filter));
  const rows = events.map((e) => ({
    id: e.id,
    type: e.type,
    merchantId: e.merchantId,
    transactionId: e.transactionId,
    reference: e.transaction?.reference ?? null,
    subjectId: e.subjectId,
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
      retryAfter: a.retryAfter,
    })),
  }));
  if (options.json) return print(ctx, { events: rows });
  if (rows.length === 0) return say(ctx, "No webhook events match.");
  for (const e of rows) {
    const last = e.attempts[0];
    const lastText = last ? `last ${last.statusCode ?? last.error} in ${last.latencyMs} ms` : "no attempt";
    const when = e.nextAttemptAt ? `, next ${e.nextAttemptAt}` : "";
    say(ctx, `${e.id}  ${e.type.padEnd(17)} ${e.mode} ${e.reference}  ${e.state}, ${e.attemptCount} attempt(s), ${lastText}${when}`);
  }
}

export async function webhooksRedeliver(ctx: CliContext, id: string, options: JsonOption): Promise<void> {
  if (!/^evt_[0-9A-Za-z]+$/.test(id)) throw new UsageError(`An event id looks like evt_…; got '${id}'.`);
  // The gateway's redelivery, as the dashboard's (through the runtime's dispatcher).
  const report = await withRuntime(ctx, (rt) => rt.gateway.operator.redeliverWebhookEvent(id));
  if (!report) throw errors.webhookEventNotFound(id);
  const result = {
    id: report.eventId,
    type: report.type,
    state: report.outcome.state.toLowerCase(),
    statusCode: report.attempt?.statusCode ?? null,
    error: report.attempt?.error ?? null,
    nextAttemptAt: report.outcome.state === "PENDING" ? report.outcome.nextAttemptAt.toISOString() : null,
  };
  if (options.json) return print(ctx, result);
  if (report.outcome.state === "DELIVERED") {
    say(ctx, `Delivered ${result.type} ${result.id} (HTTP ${result.statusCode}).`);
  } else if (report.outcome.state === "SKIPPED") {
    say(ctx, `Not sent: the merchant has no webhook URL for this event's mode. Set one with paygate merchant update.`);
  } else if (report.attempt === null) {
    say(ctx, `${result.id} is queued; a running dispatcher is sending it.`);
  } else {
    say(ctx, `Attempt failed (${result.statusCode === null ? result.error : `HTTP ${result.statusCode}`}); next retry at ${result.nextAttemptAt}.`);
  }
}

// ── The dashboard's management operations, by merchant id ──────────────────────────────────────

export interface MerchantOption extends JsonOption {
  merchant?: string;
}

export function requiredMerchant(options: MerchantOption): number {
  if (options.merchant === undefined) throw new UsageError("--merchant ID is required.");
  return merchantId(options.merchant);
}

export function modeOption(value: string | undefined, fallback?: Mode): Mode {
  const mode = value ?? fallback;
  if (mode !== "test" && mode !== "live")
    throw new UsageError(value === undefined ? "--mode test|live is required." : `--mode must be test or live; got '${value}'.`);
  return mode;
}

export async function webhooksRotateSecret(ctx: CliContext, options: MerchantOption): Promise<void> {
  const id = requiredMerchant(options);
  const rotated = await withRuntime(ctx, (rt) => rt.gateway.merchants.rotateWebhookSecret(rt.gateway.access.operator(id)));
  const result = { ...rotated, rotatedAt: rotated.rotatedAt.toISOString(), previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString() };
  if (options.json) return print(ctx, result);
  say(
    ctx,
    `Rotated the webhook signing secret of merchant ${id}.

  webhook secret    ${rotated.webhookSecret}

It is shown only now; store it safely. Until ${result.previousSecretExpiresAt} every delivery is signed
with both the old and the new secret: switch your receiver to the new one before then.`,
  );
}

export interface SendTestOptions extends MerchantOption {
  mode?: string;
}

export async function webhooksSendTest(ctx: CliContext, options: SendTestOptions): Promise<void> {
  const id = requiredMerchant(options);
  const mode = modeOption(options.mode, "test");
  const attempt = await withRuntime(ctx, (rt) => rt.gateway.operator.sendTestEvent(id, mode));
  if (options.json) return print(ctx, { ...attempt, attemptedAt: attempt.attemptedAt.toISOString() });
  const answer = attempt.statusCode === null ? `no response (${attempt.error})` : `HTTP ${attempt.statusCode}`;
  say(ctx, `Sent a ${mode} webhook.test event (${attempt.id}) to ${attempt.url}: ${answer} in ${attempt.latencyMs} ms.`);
  if (attempt.responseBody) say(ctx, `Response: ${attempt.responseBody}`);
}

export async function keysList(ctx: CliContext, options: MerchantOption): Promise<void> {
  const id = requiredMerchant(options);
  const keys = await withRuntime(ctx, (rt) => rt.gateway.merchants.listApiKeys(rt.gateway.access.operator(id)));
  const rows = keys.map((k) => ({
    ...k,
    createdAt: k.createdAt.toISOString(),
    expiresAt: k.expiresAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
  }));
  if (options.json) return print(ctx, { keys: rows });
  for (const k of rows) {
    const end = k.status === "expiring" ? `, works until ${k.expiresAt}` : k.status === "expired" ? `, ended ${k.expiresAt}` : "";
    say(ctx, `  ${k.mode.padEnd(4)} ${k.kind.padEnd(6)} ${k.prefix}  ${k.status}${end} (created ${k.createdAt})`);
  }
}

export interface KeysRollOptions extends MerchantOption {
  mode?: string;
  kind?: string;
  oldExpires?: string;
}

export async function keysRoll(ctx: CliContext, options: KeysRollOptions): Promise<void> {
  const id = requiredMerchant(options);
  const mode = modeOption(options.mode);
  const kind = options.kind;
  if (kind !== "public" && kind !== "secret") {
    throw new UsageError(kind === undefined ? "--kind public|secret is required." : `--kind must be public or secret; got '${kind}'.`);
  }
  const oldExpires = options.oldExpires;
  if (oldExpires === undefined || !Object.hasOwn(OLD_KEY_OVERLAPS, oldExpires)) {
    throw new UsageError(
      oldExpires === undefined ? "--old-expires now|1h|24h is required." : `--old-expires must be now, 1h or 24h; got '${oldExpires}'.`,
    );
  }
  const rolled = await withRuntime(ctx, (rt) =>
    rt.gateway.merchants.rollApiKey(rt.gateway.access.operator(id), { mode, kind, oldExpires: oldExpires as OldKeyExpiry }),
  );
  const replaced = rolled.replaced.map((r) => ({ prefix: r.prefix, expiresAt: r.expiresAt.toISOString() }));
  if (options.json) return print(ctx, { ...rolled, replaced });
  say(ctx, `Rolled the ${mode} ${kind} key of merchant ${id}.\n\n  new ${mode} ${kind} key   ${rolled.key}\n`);
  if (kind === "secret") say(ctx, "It is shown only now; store it safely.");
  if (replaced.length === 0) say(ctx, "No earlier key of this kind and mode was still working.");
  for (const r of replaced) say(ctx, `The old key ${r.prefix} ${oldExpires === "now" ? "stopped working now" : `works until ${r.expiresAt}`}.`);
}

export async function paymentLinkList(ctx: CliContext, options: MerchantOption): Promise<void> {
  const id = requiredMerchant(options);
  const links = await withRuntime(ctx, (rt) => rt.gateway.merchants.listPaymentLinks(rt.gateway.access.operator(id)));
  const rows = links.map((l) => ({ ...l, createdAt: l.createdAt.toISOString() }));
  if (options.json) return print(ctx, { paymentLinks: rows });
  if (rows.length === 0) return say(ctx, `Merchant ${id} has no payment links.`);
  for (const l of rows) {
    say(ctx, `  ${l.slug}  ${l.mode.padEnd(4)} ${l.active ? "active  " : "inactive"}  ${l.transactionCount} transaction(s), created ${l.createdAt}`);
  }
}

export async function paymentLinkDeactivate(ctx: CliContext, slug: string, options: MerchantOption): Promise<void> {
  const id = requiredMerchant(options);
  const link = await withRuntime(ctx, (rt) => rt.gateway.merchants.deactivatePaymentLink(rt.gateway.access.operator(id), slug));
  if (options.json) return print(ctx, { ...link, createdAt: link.createdAt.toISOString() });
  say(ctx, `Deactivated ${link.mode} payment link ${link.slug} of merchant ${id}: it starts no more transactions.`);
}

export interface HoldingsOptions extends MerchantOption {
  mode?: string;
  network?: string;
  limit?: string;
  csv?: boolean;
}

/** `paygate holdings`: what the merchant's handed-out addresses hold, with the fee coin a token needs (funds-held.ts). */
export async function holdings(ctx: CliContext, options: HoldingsOptions): Promise<void> {
  const id = requiredMerchant(options);
  const mode = modeOption(options.mode, "test");
  if (options.csv && options.json) throw new UsageError("--csv and --json print different things: give one.");
  if (options.limit !== undefined && !/^\d{1,6}$/.test(options.limit))
    throw new UsageError(`--limit must be a whole number; got '${options.limit}'.`);
  const query = { isLive: mode === "live", network: options.network, limit: options.limit === undefined ? undefined : Number(options.limit) };
  const rows = await withRuntime(ctx, (rt) => rt.gateway.merchants.fundsHeld(rt.gateway.access.operator(id), query));
  if (options.csv) {
    ctx.stdout.write(fundsHeldCsv(rows));
    return;
  }
  const shown = rows.map((r) => ({
    address: r.address,
    network: r.network,
    coin: r.coin,
    held: r.held?.toFixed() ?? null,
    feeCoin: r.feeCoin,
    feeCoinHeld: r.feeCoinHeld?.toFixed() ?? null,
    needsFeeCoin: r.needsFeeCoin,
    transactionId: r.transactionId,
    error: r.error,
  }));
  if (options.json) return print(ctx, { mode, holdings: shown });
  if (shown.length === 0)
    return say(ctx, `Merchant ${id} has handed out no ${mode} payment addresses${options.network ? ` on ${options.network}` : ""}.`);
  const table = [
    ["ADDRESS", "NETWORK", "COIN", "HELD", "FEE COIN", "FEE COIN HELD", "NOTE"],
    ...shown.map((r) => [
      r.address,
      r.network,
      r.coin,
      r.held ?? "?",
      r.feeCoin,
      r.feeCoinHeld ?? "?",
      r.error ? `unknown: ${r.error}` : r.needsFeeCoin ? `needs ${r.feeCoin} to move` : "",
    ]),
  ];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((row) => (row[i] ?? "").length))) ?? [];
  for (const row of table)
    say(
      ctx,
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    );
  const needing = shown.filter((r) => r.needsFeeCoin).length;
  if (needing > 0) {
    say(ctx, `\n${needing} address(es) hold a token but none of the fee coin: send each some of its network's fee coin before moving the token.`);
  }
}

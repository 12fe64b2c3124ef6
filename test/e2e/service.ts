// The end-to-end tests' service: paygate as src/main.ts wires it (configuration from environment
// variables through loadConfig, startRuntime with its payment watcher on real chain nodes, its webhook
// dispatcher, the HTTP app), in this process on a database of its own: a migrated embedded PGlite
// folder, or a new PostgreSQL database when DATABASE_URL is set. A merchant with test-mode account
// keys of its own (one seed, BIP84 for LTC, BIP44 for the EVM coins) and a real webhook receiver.
import { EVM_NETWORK_SLUGS } from "../../src/core/networks.ts";
import { evmVariables } from "../../src/rails/chains/config.ts";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { HDKey } from "@scure/bip32";
import { expect } from "vitest";
import { createApp, type PaygateApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { cryptoBySlug, type CryptoCurrency, type CryptoSlug } from "../../src/core/money/currencies.ts";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { CONNECTIONS_CHECKING_INTERVAL_MS } from "../../src/edge/connection-limits.ts";
import { createLogger } from "../../src/logging.ts";
import { startRuntime, type Runtime, type RuntimeOverrides } from "../../src/runtime.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { seedMigratedDatabase } from "../support/migrated-data-dir.ts";
import { createTestDatabase } from "../support/test-database.ts";
import { allVerifiedPayloads, type EventPayload, startWebhookReceiver, verifiedPayloads, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";

/** Every public default node off: only the nodes a test names are read. */
const NO_PUBLIC_NODES = {
  PAYGATE_BTC_ESPLORA_URL: "none",
  PAYGATE_BTC_TEST_ESPLORA_URL: "none",
  PAYGATE_LTC_ESPLORA_URL: "none",
  PAYGATE_ETH_RPC_URL: "none",
  PAYGATE_ETH_TEST_RPC_URL: "none",
  PAYGATE_BSC_RPC_URL: "none",
  PAYGATE_BSC_TEST_RPC_URL: "none",
  PAYGATE_TRON_RPC_URL: "none",
  PAYGATE_TRON_TEST_RPC_URL: "none",
  // Every other EVM network of the table (base, polygon, arbitrum): no public node either.
  ...Object.fromEntries(EVM_NETWORK_SLUGS.flatMap((n) => Object.values(evmVariables(n).rpc).map((name) => [name, "none"]))),
};

export interface Receipt {
  key: string;
  tx_hash: string | null;
  amount: string;
  block_height: number | null;
  confirmations: number;
  state: "SEEN" | "CONFIRMED" | "DROPPED" | "REVERSED";
}

/** GET /v1/transaction/:id's data, as much as these tests read. */
export interface Transaction {
  id: string;
  reference: string;
  status: string;
  payment_address: string;
  payment_amount: number;
  payment_uri: string;
  amount_paid: number | null;
  meta: {
    refund_address: string | null;
    payment: {
      state: string;
      amount_confirmed: string;
      amount_unconfirmed: string;
      confirmations: number | null;
      required_confirmations: number | null;
    } | null;
  };
  receipts: Receipt[];
  /** When the SUCCESSFUL payment left the chain (payment.reversed); null otherwise. */
  reversed_at: string | null;
}

export interface E2eService {
  url: string;
  /** The configuration it runs with: a test's own job (a second refund watcher) reads the same nodes. */
  config: Config;
  runtime: Runtime;
  merchant: NewMerchant;
  receiver: WebhookReceiver;
  /** The service's log lines (startRuntime's log: the watcher's messages about nodes among them). */
  logs: string[];
  /** POST /v1/transaction then /pay in `slug`: the initiated transaction. */
  initiate(slug: CryptoSlug, usd: string, refundAddress?: string): Promise<Transaction>;
  /** POST /v1/transaction/:id/pay as is, for a refused request. */
  pay(id: string, body: unknown): Promise<{ status: number; body: { status: string; message?: string; data?: Transaction } }>;
  get(id: string): Promise<Transaction>;
  /** Polls GET until `done` holds (the watcher reads every PAYGATE_WATCH_INTERVAL_MS); the last reading. */
  until(id: string, done: (t: Transaction) => boolean, what: string, timeoutMs?: number): Promise<Transaction>;
  /** Waits until a log line matches `pattern` (rejects after `timeoutMs`); every line that matches then. */
  logged(pattern: RegExp, timeoutMs?: number): Promise<string[]>;
  /**
   * Waits until a log line matches `pattern`, lets the watcher make two more passes (which fail alike
   * and should say nothing more), and gives every line that matches then.
   */
  loggedOnce(pattern: RegExp): Promise<string[]>;
  /** The event types received for the transaction, in order, each verified with the merchant's secret. */
  events(reference: string): string[];
  /** A consolidation's event types received, in order, each verified with the merchant's secret. */
  consolidationEvents(id: string): string[];
  /** A forwarder flush's event bodies received (`data.flush`), in order, each verified with the merchant's secret. */
  flushEvents(id: string): EventPayload[];
  close(): Promise<void>;
}

/** One seed's test-mode account keys: what a merchant's wallet exports (vpub for LTC and BTC, tpub for the EVM coins). */
export function merchantTestKeys(seed: Uint8Array): Record<CryptoSlug, string> {
  const master = HDKey.fromMasterSeed(seed);
  const utxo = serializeKey(master.derive("m/84'/1'/0'"), "vpub");
  // One EVM account per coin: two EVM wallets on one key would hand out the same addresses (issue 42).
  const evm = (account: number) => serializeKey(master.derive(`m/44'/60'/${account}'`), "tpub");
  return { BTC: utxo, LTC: utxo, ETH: evm(0), USDT: evm(1), BNB: evm(2), USDC: evm(3) };
}

/**
 * `runtime`: over startRuntime's wiring (e.g. `addressWatch: null`: initiate tells no node of its addresses).
 * `seed`: the merchant's seed (merchantTestKeys), for a test that signs with its keys; random when absent.
 */
export async function startE2eService(
  env: Record<string, string>,
  coins: CryptoSlug[],
  options: { runtime?: Pick<RuntimeOverrides, "addressWatch">; seed?: Uint8Array } = {},
): Promise<E2eService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "paygate-e2e-"));
  let closeDb = async () => {};
  const databaseEnv: Record<string, string> = {};
  if (process.env.DATABASE_URL) {
    const db = await createTestDatabase();
    databaseEnv.DATABASE_URL = db.url ?? "";
    closeDb = db.close;
  } else {
    await seedMigratedDatabase(path.join(dataDir, "pglite"));
  }
  const config = loadConfig({
    ...NO_PUBLIC_NODES,
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: "true",
    PAYGATE_WEBHOOK_POLL_MS: "50",
    PAYGATE_WATCH_INTERVAL_MS: "150",
    PAYGATE_CHAIN_TIMEOUT_MS: "10000",
    // These tests poll the REST API closely and send refusals back to back: on a fast machine a file used up
    // the test key's 25 a second (CI: 429 rate_limited, four files in turn). Rate limits have their own tests
    // (test/http/rate-limits.test.ts); a file about them would pass its own in `env`.
    PAYGATE_RATE_LIMIT_TEST: "10000/s",
    PAYGATE_RATE_LIMIT_LIVE: "10000/s",
    ...databaseEnv,
    ...env,
  });
  const logs: string[] = [];
  const parts: { runtime?: Runtime; app?: PaygateApp; server?: Server; receiver?: WebhookReceiver } = {};
  /** Stops what was started, in reverse: also when a step of the start fails. */
  const close = async () => {
    const { server, app, runtime, receiver } = parts;
    try {
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await app?.stop();
      await runtime?.close();
      await receiver?.close();
    } finally {
      // A part that failed to stop must not leave its database on the server.
      await closeDb();
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  let runtime: Runtime;
  let receiver: WebhookReceiver;
  let url: string;
  let merchant: NewMerchant;
  try {
    runtime = parts.runtime = await startRuntime(config, { ...options.runtime, log: (line) => void logs.push(line) });
    receiver = parts.receiver = await startWebhookReceiver();
    const app = (parts.app = await createApp({
      gateway: runtime.gateway,
      readiness: runtime.database.readiness,
      logger: createLogger({ level: "silent" }),
      rateLimits: runtime.rateLimiter,
      connections: config.connections,
    }));
    const server = (parts.server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS }, app.app));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    app.serve(server);
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    merchant = await runtime.gateway.operator.createMerchant({ name: "Regtest Stores", testWebhookUrl: receiver.url });
    const keys = merchantTestKeys(options.seed ?? randomBytes(32));
    await runtime.gateway.operator.updateMerchant(merchant.id, {
      wallets: coins.map((slug) => ({ currency: cryptoBySlug(slug) as CryptoCurrency, isLive: false, extendedPublicKey: keys[slug] })),
    });
    runtime.startBackgroundJobs();
  } catch (error) {
    await close();
    throw error;
  }

  const call = async (method: string, route: string, key: string, body?: unknown) => {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { status: string; message?: string; data?: Transaction } };
  };
  const service: E2eService = {
    url,
    config,
    runtime,
    merchant,
    receiver,
    logs,
    async initiate(slug, usd, refundAddress) {
      const created = await call("POST", "/v1/transaction", merchant.testPublicKey, initializeBody({ amount: usd }));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = (created.body.data as Transaction).id;
      const currency = cryptoBySlug(slug) as CryptoCurrency;
      const paid = await service.pay(id, { currency_id: String(currency.id), ...(refundAddress ? { refund_address: refundAddress } : {}) });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      return paid.body.data as Transaction;
    },
    pay: (id, body) => call("POST", `/v1/transaction/${id}/pay`, merchant.testSecretKey, body),
    async get(id) {
      const got = await call("GET", `/v1/transaction/${id}`, merchant.testSecretKey);
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      return got.body.data as Transaction;
    },
    async until(id, done, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const transaction = await service.get(id);
        if (done(transaction)) return transaction;
        if (Date.now() > deadline) {
          throw new Error(`transaction ${id} did not reach ${what} within ${timeoutMs} ms: ${JSON.stringify({ ...transaction, qrCode: undefined })}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async logged(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!logs.some((line) => pattern.test(line))) {
        if (Date.now() > deadline) throw new Error(`no log line matches ${pattern} within ${timeoutMs} ms: ${JSON.stringify(logs)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return logs.filter((line) => pattern.test(line));
    },
    async loggedOnce(pattern) {
      await service.logged(pattern);
      await runtime.watcher.tick();
      await runtime.watcher.tick();
      return service.logged(pattern);
    },
    events: (reference) => verifiedPayloads(receiver, merchant.webhookSecret, reference).map((p) => p.event),
    consolidationEvents: (id) =>
      allVerifiedPayloads(receiver, merchant.webhookSecret)
        .filter((p) => p.data.consolidation?.id === id)
        .map((p) => p.event),
    flushEvents: (id) => allVerifiedPayloads(receiver, merchant.webhookSecret).filter((p) => p.data.flush?.id === id),
    close,
  };
  return service;
}

/** Waits until the event has been received for the transaction (deliveries run in the background). */
export async function eventArrives(service: E2eService, reference: string, event: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!service.events(reference).includes(event)) {
    if (Date.now() > deadline) throw new Error(`no ${event} for ${reference}: got ${service.events(reference).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `text` as a literal part of a regular expression. */
export const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The transaction's receipts less a hash-less balance receipt that a transfer found by its hash took
 * over (DROPPED, same amount): anvil may answer a balance at a block's hash from its live state while
 * it imports the next block, so a read can first see a plain transfer through the balance only
 * (evm-rpc.ts nativeRead). Any other receipt, dropped or not, stays.
 */
export const onChain = (t: Transaction) =>
  t.receipts.filter(
    (r) =>
      !(
        r.state === "DROPPED" &&
        r.key.startsWith("balance:") &&
        t.receipts.some((other) => other.tx_hash !== null && other.state !== "DROPPED" && other.amount === r.amount)
      ),
  );

/** Confirmations shown for the transaction: the API's count while it waits, and its receipts' (onChain). */
export const progress = (t: Transaction) => ({
  status: t.status,
  state: t.meta.payment?.state ?? null,
  confirmations: t.meta.payment?.confirmations ?? null,
  required: t.meta.payment?.required_confirmations ?? null,
  receipts: onChain(t).map((r) => [r.tx_hash, r.amount, r.confirmations, r.state]),
});

// The ceiling: a bare Express 5 app whose POST /v1/transaction parses the same JSON body as
// initialize and writes what initialize writes, in one statement: a row like the transaction row
// and its webhook event (the outbox row). No authentication, no customer, no Prisma: what HTTP +
// JSON + that statement cost on this machine and database.
//
//   PORT=… CEILING_DATABASE_URL=postgres://… node --import tsx bench/ceiling.ts   (pg Pool, max 10)
//   PORT=… CEILING_PGLITE_DIR=/tmp/…        node --import tsx bench/ceiling.ts   (PGlite, that folder)
import { randomBytes, randomUUID } from "node:crypto";
import type { Server } from "node:http";
import { PGlite } from "@electric-sql/pglite";
import express from "express";
import pg from "pg";

/**
 * Columns and indexes of the service's `transactions` table, without the foreign keys. In a schema
 * of its own: the service's migrations refuse to start on a non-empty `public` schema.
 */
const CREATE_TABLE = `
CREATE SCHEMA IF NOT EXISTS bench_ceiling;
CREATE TABLE IF NOT EXISTS bench_ceiling.transactions (
  id TEXT PRIMARY KEY,
  reference TEXT NOT NULL UNIQUE,
  merchant_id INTEGER NOT NULL,
  customer_id INTEGER NOT NULL,
  payment_link_id INTEGER,
  is_live BOOLEAN NOT NULL,
  status TEXT NOT NULL DEFAULT 'INITIATED',
  description TEXT,
  initialized_amount DECIMAL(30,2) NOT NULL,
  initialized_currency_id INTEGER NOT NULL,
  request_meta JSONB NOT NULL DEFAULT '{}',
  payment_currency_id INTEGER,
  payment_amount DECIMAL(38,18),
  amount_paid DECIMAL(38,18),
  payment_address TEXT UNIQUE,
  wallet_id INTEGER,
  derivation_index INTEGER,
  refund_address TEXT,
  quote_rate DECIMAL(38,18),
  quote_source TEXT,
  quoted_at TIMESTAMPTZ(3),
  initiated_at TIMESTAMPTZ(3),
  created_at TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at TIMESTAMPTZ(3) NOT NULL,
  UNIQUE (wallet_id, derivation_index)
);
CREATE INDEX IF NOT EXISTS transactions_merchant_created ON bench_ceiling.transactions (merchant_id, created_at);
CREATE INDEX IF NOT EXISTS transactions_status ON bench_ceiling.transactions (status);
CREATE TABLE IF NOT EXISTS bench_ceiling.webhook_events (
  id TEXT PRIMARY KEY,
  seq BIGSERIAL UNIQUE,
  merchant_id INTEGER NOT NULL,
  transaction_id TEXT NOT NULL REFERENCES bench_ceiling.transactions (id),
  type TEXT NOT NULL,
  is_live BOOLEAN NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'PENDING',
  attempt_count INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ(3) NOT NULL,
  created_at TIMESTAMPTZ(3) NOT NULL,
  UNIQUE (transaction_id, type)
);
CREATE INDEX IF NOT EXISTS webhook_events_due ON bench_ceiling.webhook_events (state, next_attempt_at, seq);`;

const INSERT = `
WITH created AS (
  INSERT INTO bench_ceiling.transactions
    (id, reference, merchant_id, customer_id, is_live, status, description, initialized_amount, initialized_currency_id, request_meta, updated_at)
  VALUES ($1, $2, 1, 1, false, 'INITIATED', $3, $4, $5, $6, now())
  RETURNING id, reference, status, created_at),
event AS (
  INSERT INTO bench_ceiling.webhook_events (id, merchant_id, transaction_id, type, is_live, body, next_attempt_at, created_at)
  SELECT $7, 1, created.id, 'payment.initiated', false, $8, now(), now() FROM created)
SELECT * FROM created`;

const FIAT_IDS: Record<string, number> = { USD: 1, NGN: 2 };

interface Store {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** Several statements at once (the schema). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

async function openStore(): Promise<Store> {
  const url = process.env.CEILING_DATABASE_URL;
  const dir = process.env.CEILING_PGLITE_DIR;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    return {
      query: (sql, params) => pool.query(sql, params),
      exec: async (sql) => void (await pool.query(sql)),
      close: () => pool.end(),
    };
  }
  if (dir) {
    const db = await PGlite.create({ dataDir: dir });
    return {
      query: (sql, params) => db.query<Record<string, unknown>>(sql, params),
      exec: async (sql) => void (await db.exec(sql)),
      close: () => db.close(),
    };
  }
  throw new Error("Set CEILING_DATABASE_URL or CEILING_PGLITE_DIR");
}

interface InitializeBody {
  customer: { email: string; name?: string };
  currency: string;
  amount: string;
  description?: string;
  meta?: object;
}

function isInitializeBody(body: unknown): body is InitializeBody {
  if (typeof body !== "object" || body === null) return false;
  const { customer, currency, amount } = body as Record<string, unknown>;
  return (
    typeof customer === "object" &&
    customer !== null &&
    typeof (customer as Record<string, unknown>).email === "string" &&
    typeof currency === "string" &&
    currency.toUpperCase() in FIAT_IDS &&
    typeof amount === "string" &&
    /^\d+(\.\d{1,2})?$/.test(amount)
  );
}

function createCeilingApp(store: Store): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(express.json({ limit: "64kb" }));
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.post("/v1/transaction", async (req, res) => {
    const body: unknown = req.body;
    if (!isInitializeBody(body)) {
      res.status(400).json({ status: "error", message: "Validation Error" });
      return;
    }
    const params = [
      randomUUID(),
      `bq_${randomBytes(18).toString("base64url")}`,
      body.description ?? null,
      body.amount,
      FIAT_IDS[body.currency.toUpperCase()],
      JSON.stringify(body.meta ?? {}),
      `evt_${randomBytes(18).toString("base64url")}`,
      JSON.stringify({ event: "payment.initiated", data: { transaction: { ...body, status: "INITIATED" } } }),
    ];
    const { rows } = await store.query(INSERT, params);
    res.status(201).json({ status: "success", data: rows[0], meta: body.meta ?? {} });
  });
  return app;
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 0);
  const store = await openStore();
  await store.exec(CREATE_TABLE);
  const app = createCeilingApp(store);
  const server: Server = app.listen(port, "127.0.0.1");
  const stop = () => {
    server.close(() => {
      store.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
    server.closeAllConnections();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error("ceiling failed:", error);
  process.exit(1);
});

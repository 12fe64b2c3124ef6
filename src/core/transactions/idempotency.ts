// Idempotency-Key (Stripe's model): a client that retries a POST after a timeout or a dropped
// connection sends the same key, and gets the transaction its first request made rather than a
// second one. Keys belong to one merchant and mode and live 24 hours. Only a request that changed
// something is remembered; one that failed (a 503, a validation error) can be retried with its key.
import { createHash } from "node:crypto";
import { DuplicateKeyError, errors, type FieldError } from "../errors.ts";
import type { IdempotencyRecord, IdempotencyStore } from "../stores/idempotency.ts";
import type { TransactionStore } from "../stores/transactions.ts";
import { findTransactionFor } from "./record.ts";
import type { TransactionRecord } from "../records/transactions.ts";

/** A transaction, marked when an earlier request with the same Idempotency-Key made it. */
export type Outcome = TransactionRecord & { replayed?: true };

export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;
const KEY = /^[\x21-\x7e]{1,255}$/;

interface IdempotencyStores {
  idempotency: IdempotencyStore;
  transactions: TransactionStore;
}

/** A key in its scope (merchant, mode, operation) with the fingerprint of its parameters. */
export type IdempotencyScope = IdempotencyRecord;

/** The body's field errors and the key's, together, for the operation's own validation error. */
export function requestProblems(parsed: { ok: true } | { ok: false; errors: FieldError[] }, key: string | undefined): FieldError[] {
  const problems = parsed.ok ? [] : [...parsed.errors];
  if (key !== undefined && !KEY.test(key)) {
    problems.push({ field: "Idempotency-Key", message: "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice)" });
  }
  return problems;
}

/** The key's scope for this caller and operation, or null when no key was sent. */
export function scopeOf(
  key: string | undefined,
  caller: { merchant: { id: number }; isLive: boolean },
  operation: string,
  parameters: unknown,
): IdempotencyScope | null {
  if (key === undefined) return null;
  return { merchantId: caller.merchant.id, isLive: caller.isLive, key, operation, fingerprint: fingerprintOf(parameters) };
}

/**
 * Runs `work` once per key: a key seen before answers with its transaction, and a request that
 * loses the race to record the key (`work` fails on the key's primary key) answers with the winner's.
 */
export async function idempotently(
  stores: IdempotencyStores,
  scope: IdempotencyScope | null,
  work: () => Promise<TransactionRecord>,
): Promise<Outcome> {
  const replay = scope && (await replayed(stores, scope));
  if (replay) return replay;
  try {
    return await work();
  } catch (error) {
    const winner = scope && error instanceof DuplicateKeyError ? await replayed(stores, scope) : null;
    if (winner) return winner;
    throw error;
  }
}

/** SHA-256 of the parsed parameters, key order aside. */
function fingerprintOf(parameters: unknown): string {
  return createHash("sha256").update(canonicalJson(parameters)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The transaction a request with this key already made, or null when the key is new. Throws the
 * 409 when the key was used for another operation or other parameters.
 */
async function replayOf(store: IdempotencyStore, scope: IdempotencyScope): Promise<string | null> {
  const row = await store.find(scope.merchantId, scope.isLive, scope.key);
  if (!row) return null;
  if (row.operation !== scope.operation || row.fingerprint !== scope.fingerprint) throw errors.idempotencyConflict();
  return row.transactionId;
}

/** The transaction an earlier request with this key made, marked as a replay; null for a new key. */
async function replayed(stores: IdempotencyStores, scope: IdempotencyScope): Promise<Outcome | null> {
  const id = await replayOf(stores.idempotency, scope);
  const transaction = id === null ? null : await findTransactionFor(stores.transactions, id, scope.merchantId, scope.isLive);
  return transaction && { ...transaction, replayed: true };
}

/** Forgets keys older than their 24 hours; returns how many. */
export function pruneIdempotencyKeys(store: IdempotencyStore, now: Date): Promise<number> {
  return store.pruneBefore(new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS));
}

/**
 * The refund an earlier request with this key made (issue 26), or null for a new key. The same key for
 * another operation or other parameters is the 409 of replayOf.
 */
export async function earlierRefundId(store: IdempotencyStore, scope: IdempotencyScope): Promise<string | null> {
  const row = await store.find(scope.merchantId, scope.isLive, scope.key);
  if (!row) return null;
  if (row.operation !== scope.operation || row.fingerprint !== scope.fingerprint || row.refundId === null) throw errors.idempotencyConflict();
  return row.refundId;
}

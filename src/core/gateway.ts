// The one entry to the domain for every adapter (REST, GraphQL, CLI): it holds the ports and
// exposes the payment operations. Rules live in the functions it calls, never in the adapters.
import type { Database } from "../db/types.ts";
import type { Credentials } from "./merchants/credentials.ts";
import type { Clock, PaymentRails, PriceFeed, QrRenderer, TransactionStore } from "./ports.ts";
import type { SecretBox } from "./secrets.ts";
import { pruneIdempotencyKeys, type Outcome } from "./idempotency.ts";
import { initializeTransaction, type InitializeRequest } from "./transactions/initialize.ts";
import { initiatePayment, type InitiateRequest } from "./transactions/initiate.ts";
import { paymentRequestOf } from "./transactions/payment-request.ts";
import type { TransactionRecord } from "./transactions/record.ts";
import { retrieveTransaction } from "./transactions/retrieve.ts";
import {
  applyReceipts,
  DEFAULT_LIFECYCLE,
  expireDue,
  paymentStateOf,
  type LifecyclePolicy,
  type PaymentAmounts,
  type ReceiptUpdate,
} from "./transactions/lifecycle.ts";
import { expireTestTransaction, recordTestPayment, type TestHelperRequest } from "./transactions/test-helpers.ts";

export interface GatewayDeps {
  db: Database;
  /** Initialize's one-statement write (src/db/transaction-insert.ts). */
  transactions: TransactionStore;
  credentials: Credentials;
  prices: PriceFeed;
  rails: PaymentRails;
  qr: QrRenderer;
  clock: Clock;
  secrets: SecretBox;
  /** PAYGATE_WEBHOOK_ALLOW_PRIVATE: live webhook URLs may name private and loopback addresses. */
  allowPrivateWebhookUrls?: boolean;
  /** Windows and tolerance of a transaction's life; DEFAULT_LIFECYCLE when absent. */
  lifecycle?: LifecyclePolicy;
}

export class PaymentGateway {
  constructor(readonly deps: GatewayDeps) {}

  initializeTransaction(request: InitializeRequest): Promise<Outcome> {
    return initializeTransaction(this.deps, request);
  }

  initiatePayment(request: InitiateRequest): Promise<Outcome> {
    return initiatePayment(this.deps, request);
  }

  retrieveTransaction(bearerToken: string | undefined, id: string) {
    return retrieveTransaction(this.deps, bearerToken, id);
  }

  paymentRequest(transaction: TransactionRecord) {
    return paymentRequestOf(this.deps, transaction);
  }

  paymentState(transaction: PaymentAmounts) {
    return paymentStateOf(transaction, this.lifecycle);
  }

  /** Test mode: a payment as the chain watcher would record it. */
  recordTestPayment(request: TestHelperRequest): Promise<TransactionRecord> {
    return recordTestPayment(this.deps, request);
  }

  /** Test mode: the checkout window ends now. */
  expireTestTransaction(request: TestHelperRequest): Promise<TransactionRecord> {
    return expireTestTransaction(this.deps, request);
  }

  /** Abandons open transactions whose window has closed (the expiry scheduler's tick). */
  expireDue(limit?: number): Promise<TransactionRecord[]> {
    return expireDue(this.deps.db, this.deps.clock.now(), limit, this.lifecycle);
  }

  /** Forgets Idempotency-Keys past their 24 hours (the expiry job's tick). */
  pruneIdempotencyKeys(): Promise<number> {
    return pruneIdempotencyKeys(this.deps.db, this.deps.clock.now());
  }

  /** Records what a chain watcher saw at a transaction's address, and moves the transaction on. */
  applyReceipts(transactionId: string, update: ReceiptUpdate): Promise<TransactionRecord> {
    return applyReceipts(this.deps.db, transactionId, update, this.deps.clock.now(), this.lifecycle);
  }

  private get lifecycle(): LifecyclePolicy {
    return this.deps.lifecycle ?? DEFAULT_LIFECYCLE;
  }
}

export const systemClock: Clock = { now: () => new Date() };

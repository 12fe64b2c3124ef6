// The one entry to the domain for every adapter (REST, GraphQL, CLI): it holds the ports and
// exposes the payment operations. Rules live in the functions it calls, never in the adapters.
import type { Database } from "../db/types.ts";
import type { Credentials } from "./merchants/credentials.ts";
import type { Clock, PaymentRails, PriceFeed, QrRenderer } from "./ports.ts";
import type { SecretBox } from "./secrets.ts";
import { initializeTransaction, type InitializeRequest } from "./transactions/initialize.ts";
import { initiatePayment, type InitiateRequest } from "./transactions/initiate.ts";
import { paymentRequestOf } from "./transactions/payment-request.ts";
import type { TransactionRecord } from "./transactions/record.ts";
import { retrieveTransaction } from "./transactions/retrieve.ts";

export interface GatewayDeps {
  db: Database;
  credentials: Credentials;
  prices: PriceFeed;
  rails: PaymentRails;
  qr: QrRenderer;
  clock: Clock;
  secrets: SecretBox;
  /** PAYGATE_WEBHOOK_ALLOW_PRIVATE: live webhook URLs may name private and loopback addresses. */
  allowPrivateWebhookUrls?: boolean;
}

export class PaymentGateway {
  constructor(readonly deps: GatewayDeps) {}

  initializeTransaction(request: InitializeRequest): Promise<TransactionRecord> {
    return initializeTransaction(this.deps, request);
  }

  initiatePayment(request: InitiateRequest): Promise<TransactionRecord> {
    return initiatePayment(this.deps, request);
  }

  retrieveTransaction(bearerToken: string | undefined, id: string) {
    return retrieveTransaction(this.deps, bearerToken, id);
  }

  paymentRequest(transaction: TransactionRecord) {
    return paymentRequestOf(this.deps, transaction);
  }
}

export const systemClock: Clock = { now: () => new Date() };

// What the core needs from its database: one store per kind of record, one file each (as src/db/stores/
// implements them on Prisma); the core imports only their types, so every query lives in src/db and
// every rule in src/core.
import type { RateLimitCounters } from "../rate-limits.ts";
import type { AuditLogStore } from "./audit-log.ts";
import type { CredentialStore } from "./credentials.ts";
import type { DashboardStore } from "./dashboard.ts";
import type { EmailStore } from "./email.ts";
import type { ForwarderStore } from "./forwarders.ts";
import type { OwnAddressStore } from "./own-addresses.ts";
import type { HomeFiguresStore } from "./home-figures.ts";
import type { InvoiceStore } from "./invoices.ts";
import type { LedgerStore } from "./ledger.ts";
import type { IdempotencyStore } from "./idempotency.ts";
import type { MerchantStore } from "./merchants.ts";
import type { RefundStore } from "./refunds.ts";
import type { SecondFactorStore } from "./second-factors.ts";
import type { SettlementStore } from "./settlement.ts";
import type { SecurityKeyStore } from "./security-keys.ts";
import type { SweepStore } from "./sweeps.ts";
import type { TestRateStore } from "./test-rates.ts";
import type { TransactionStore } from "./transactions.ts";
import type { WebhookEndpointStore } from "./webhook-endpoints.ts";
import type { WebhookEventStore } from "./webhook-events.ts";

/** Every store, as src/db/stores/index.ts makes them on one database. */
export interface Stores {
  transactions: TransactionStore;
  /** Refunds (issue 26). */
  refunds: RefundStore;
  /** Invoices (issue 44). */
  invoices: InvoiceStore;
  /** Consolidations of settled BTC and LTC outputs (issue 40). */
  settlement: SettlementStore;
  /** Deposit forwarders on EVM networks: settings, payments' forwarders, flushes (issue 40). */
  forwarders: ForwarderStore;
  /** TRON own-address mode: settings, unique amounts, unmatched receipts (issue 40). */
  ownAddresses: OwnAddressStore;
  /** Sweeps the merchant sent from its payment addresses and posted back (issue 40). */
  sweeps: SweepStore;
  /** The ledger's entries, derived from receipts, refunds and consolidations (issue 40, goal 5). */
  ledger: LedgerStore;
  credentials: CredentialStore;
  idempotency: IdempotencyStore;
  merchants: MerchantStore;
  testRates: TestRateStore;
  webhookEvents: WebhookEventStore;
  /** Webhook endpoints and their deliveries (issue 27). */
  webhookEndpoints: WebhookEndpointStore;
  dashboard: DashboardStore;
  secondFactors: SecondFactorStore;
  securityKeys: SecurityKeyStore;
  auditLog: AuditLogStore;
  /** The dashboard home's grouped figures. */
  homeFigures: HomeFiguresStore;
  /** The e-mail outbox and its follower's cursor (issue 44). */
  email: EmailStore;
  /** The rate-limit counters, for sign-in throttling (the API's limiter is given its own by the HTTP layer). */
  rateLimits: RateLimitCounters;
}

// Every store of the core (src/core/stores/) on one Prisma client.
import type { Stores } from "../../core/stores/index.ts";
import type { Database } from "../types.ts";
import { auditLogStore } from "./audit-log.ts";
import { credentialStore } from "./credentials.ts";
import { dashboardStore } from "./dashboard.ts";
import { emailStore } from "./email.ts";
import { homeFiguresStore } from "./home-figures.ts";
import { invoiceStore } from "./invoices.ts";
import { ledgerStore } from "./ledger.ts";
import { idempotencyStore } from "./idempotency.ts";
import { merchantStore } from "./merchants.ts";
import { rateLimitCounters } from "./rate-limit-counters.ts";
import { refundStore } from "./refunds.ts";
import { secondFactorStore } from "./second-factors.ts";
import { securityKeyStore } from "./security-keys.ts";
import { settlementStore } from "./settlement.ts";
import { sweepStore } from "./sweeps.ts";
import { forwarderStore } from "./forwarders.ts";
import { testRateStore } from "./test-rates.ts";
import { ownAddressStore } from "./own-addresses.ts";
import { transactionStore } from "./transactions.ts";
import { webhookEndpointStore } from "./webhook-endpoints.ts";
import { webhookEventStore } from "./webhook-events.ts";

export function prismaStores(db: Database): Stores {
  return {
    transactions: transactionStore(db),
    refunds: refundStore(db),
    invoices: invoiceStore(db),
    settlement: settlementStore(db),
    forwarders: forwarderStore(db),
    ownAddresses: ownAddressStore(db),
    sweeps: sweepStore(db),
    ledger: ledgerStore(db),
    credentials: credentialStore(db),
    idempotency: idempotencyStore(db),
    merchants: merchantStore(db),
    testRates: testRateStore(db),
    webhookEvents: webhookEventStore(db),
    webhookEndpoints: webhookEndpointStore(db),
    dashboard: dashboardStore(db),
    secondFactors: secondFactorStore(db),
    securityKeys: securityKeyStore(db),
    auditLog: auditLogStore(db),
    homeFigures: homeFiguresStore(db),
    rateLimits: rateLimitCounters(db),
    email: emailStore(db),
  };
}

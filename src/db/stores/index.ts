// Every store of the core (src/core/stores/) on one Prisma client.
import type { Stores } from "../../core/stores/index.ts";
import type { MerchantStore } from "../../core/stores/merchants.ts";
import { releaseLeases } from "./index-leases.ts";
import { InitiateMemory } from "./initiate-memory.ts";
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

export interface StoreOptions {
  /**
   * How long initiate may use the merchant's pricing and default network as last read (the credential
   * cache's time, PAYGATE_CREDENTIAL_CACHE_MS); 0: initiate reads them, and its transaction, every time.
   */
  initiateMemoryMs?: number;
  /** The clock by which that time runs out, in milliseconds; the process's own by default. */
  now?: () => number;
}

export function prismaStores(db: Database, options: StoreOptions = {}): Stores {
  const memory = options.initiateMemoryMs ? new InitiateMemory(options.initiateMemoryMs, options.now) : null;
  const merchants = merchantStore(db);
  return {
    transactions: transactionStore(db, memory),
    refunds: refundStore(db),
    invoices: invoiceStore(db),
    settlement: settlementStore(db),
    forwarders: forwarderStore(db),
    ownAddresses: ownAddressStore(db),
    sweeps: sweepStore(db),
    ledger: ledgerStore(db),
    credentials: credentialStore(db),
    idempotency: idempotencyStore(db),
    merchants: memory ? forgettingChanges(db, merchants, memory) : merchants,
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

/** A change of a merchant's settings or wallets in this process reaches its next initiate here at once. */
function forgettingChanges(db: Database, store: MerchantStore, memory: InitiateMemory): MerchantStore {
  const forget = (merchantId: number) => releaseLeases(db, memory.forgetMerchant(merchantId)).catch(() => {});
  return {
    ...store,
    async update(id, change) {
      try {
        return await store.update(id, change);
      } finally {
        await forget(id);
      }
    },
    async setPricing(merchantId, pricing, now, audit) {
      try {
        return await store.setPricing(merchantId, pricing, now, audit);
      } finally {
        await forget(merchantId);
      }
    },
  };
}

// The dashboard's pages, in the order of the navigation. Adding a page is one line here (and its
// module in this folder); the navigation shows only pages that exist and the role may read.
import type { DashboardPage } from "../context.ts";
import { renderApiKeys } from "./api-keys.ts";
import { renderAuditLog } from "./audit-log.ts";
import { renderFundsHeld } from "./funds-held.ts";
import { renderInvoice } from "./invoice.ts";
import { renderInvoices } from "./invoices.ts";
import { renderLedger } from "./ledger.ts";
import { renderPaymentLinks } from "./payment-links.ts";
import { renderPricing } from "./pricing.ts";
import { renderSecurity } from "./security.ts";
import { renderSettlement } from "./settlement.ts";
import { renderTransaction } from "./transaction.ts";
import { renderTransactions } from "./transactions.ts";
import { renderUsers } from "./users.ts";
import { renderWallets } from "./wallets.ts";
import { renderWebhooks } from "./webhooks.ts";

export const PAGES: DashboardPage[] = [
  // Home loads its chart library on first visit: the other pages do not carry it.
  { path: "home", title: "Home", permission: "read", render: async (ctx, main) => (await import("./home.ts")).renderHome(ctx, main) },
  { path: "transactions", title: "Transactions", permission: "read", render: renderTransactions },
  { path: "transaction", title: "Transaction", permission: "read", render: renderTransaction, nav: false, modeSwitchTo: "transactions" },
  { path: "invoices", title: "Invoices", permission: "read", render: renderInvoices },
  { path: "invoice", title: "Invoice", permission: "read", render: renderInvoice, nav: false, modeSwitchTo: "invoices" },
  { path: "webhooks", title: "Webhooks", permission: "read", render: renderWebhooks },
  { path: "api-keys", title: "API keys", permission: "read", render: renderApiKeys },
  { path: "wallets", title: "Wallets", permission: "read", render: renderWallets },
  { path: "funds-held", title: "Funds held", permission: "read", render: renderFundsHeld },
  { path: "settlement", title: "Settlement", permission: "read", render: renderSettlement },
  { path: "ledger", title: "Ledger", permission: "read", render: renderLedger },
  { path: "payment-links", title: "Payment links", permission: "read", render: renderPaymentLinks },
  { path: "pricing", title: "Pricing", permission: "read", render: renderPricing },
  { path: "users", title: "Users", permission: "read", render: renderUsers },
  { path: "security", title: "Security", permission: "read", render: renderSecurity },
  { path: "audit-log", title: "Audit log", permission: "read_audit_log", render: renderAuditLog },
];

// Each REST resource keeps its routes and its OpenAPI operations together (issue 45): the operations a
// resource's openapi.ts registers are exactly the routes its route files serve, every folder of
// src/http/v1 is such a resource, and src/http/openapi.ts lists the operations in the document's order.
import { readdirSync, readFileSync } from "node:fs";
import { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/http/openapi.ts";
import { registerEventPaths } from "../../src/http/v1/events/openapi.ts";
import { registerFlushRulePaths } from "../../src/http/v1/flush-rules/openapi.ts";
import { registerInvoicePaths } from "../../src/http/v1/invoices/openapi.ts";
import { registerLedgerPaths } from "../../src/http/v1/ledger/openapi.ts";
import { registerMerchantPricingPaths } from "../../src/http/v1/merchant-pricing/openapi.ts";
import { registerRefundPaths } from "../../src/http/v1/refunds/openapi.ts";
import { registerSettlementPaths } from "../../src/http/v1/settlements/openapi.ts";
import { registerTestHelperPaths } from "../../src/http/v1/test-helpers/openapi.ts";
import { registerTransactionPaths } from "../../src/http/v1/transactions/openapi.ts";
import { registerWebhookEndpointPaths } from "../../src/http/v1/webhook-endpoints/openapi.ts";

const V1 = new URL("../../src/http/v1/", import.meta.url);

/** Each resource's folder, the files that declare its routes, and what describes them. */
const RESOURCES: { folder: string; routeFiles: string[]; register: (registry: OpenAPIRegistry) => void }[] = [
  { folder: "transactions", routeFiles: ["routes.ts"], register: registerTransactionPaths },
  { folder: "test-helpers", routeFiles: ["routes.ts"], register: registerTestHelperPaths },
  { folder: "events", routeFiles: ["routes.ts", "stream.ts"], register: registerEventPaths },
  { folder: "merchant-pricing", routeFiles: ["routes.ts"], register: registerMerchantPricingPaths },
  { folder: "refunds", routeFiles: ["routes.ts"], register: registerRefundPaths },
  { folder: "invoices", routeFiles: ["routes.ts"], register: registerInvoicePaths },
  { folder: "settlements", routeFiles: ["routes.ts", "own-addresses-routes.ts", "sweeps-routes.ts"], register: registerSettlementPaths },
  { folder: "flush-rules", routeFiles: ["routes.ts"], register: registerFlushRulePaths },
  { folder: "ledger", routeFiles: ["routes.ts"], register: registerLedgerPaths },
  { folder: "webhook-endpoints", routeFiles: ["routes.ts"], register: registerWebhookEndpointPaths },
];

/** "method /path" of every route a resource's files declare, Express's `:param` written as OpenAPI's `{param}`. */
function served(folder: string, files: string[]): string[] {
  const source = files.map((file) => readFileSync(new URL(`${folder}/${file}`, V1), "utf8")).join("\n");
  return [...source.matchAll(/router\.(get|post|put|patch|delete)\(\s*"([^"]+)"/g)]
    .map(([, method, path]) => `${method} ${path?.replace(/:(\w+)/g, "{$1}")}`)
    .sort();
}

/** "method /path" of every operation a resource's openapi.ts registers. */
function documented(register: (registry: OpenAPIRegistry) => void): string[] {
  const registry = new OpenAPIRegistry();
  register(registry);
  return registry.definitions.flatMap((d) => (d.type === "route" ? [`${d.route.method} ${d.route.path}`] : [])).sort();
}

describe("the REST resources of src/http/v1", () => {
  it.each(RESOURCES)("$folder documents exactly the routes it serves", ({ folder, routeFiles, register }) => {
    const routes = served(folder, routeFiles);
    expect(routes.length).toBeGreaterThan(0);
    expect(documented(register)).toEqual(routes);
  });

  it("are every folder of src/http/v1: a new resource is listed here with its routes and operations", () => {
    const folders = readdirSync(V1, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(folders.map((entry) => entry.name).sort()).toEqual(RESOURCES.map((r) => r.folder).sort());
  });

  it("are assembled in the document's order of operations", () => {
    const operations = Object.values(openApiDocument().paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).map((operation) => operation.operationId),
    );
    expect(operations).toEqual([
      "initializeTransaction",
      "initiatePayment",
      "retrieveTransaction",
      "listTransactions",
      "listEvents",
      "streamEvents",
      "retrieveEvent",
      "retrieveMerchantPricing",
      "updateMerchantPricing",
      "recordTestPayment",
      "expireTestTransaction",
      "live",
      "ready",
      "health",
      "createRefund",
      "listTransactionRefunds",
      "listRefunds",
      "retrieveRefund",
      "cancelRefund",
      "markRefundPaid",
      "createInvoice",
      "listInvoices",
      "retrieveInvoice",
      "updateInvoice",
      "retrieveInvoicePdf",
      "finalizeInvoice",
      "voidInvoice",
      "createConsolidation",
      "listConsolidations",
      "retrieveConsolidation",
      "cancelConsolidation",
      "listForwarderSettings",
      "setForwarderSetting",
      "removeForwarderSetting",
      "createFlush",
      "listFlushes",
      "retrieveFlush",
      "retrieveSweepPlan",
      "listOwnAddressSettings",
      "setOwnAddressSetting",
      "removeOwnAddressSetting",
      "listUnmatchedReceipts",
      "retrieveUnmatchedReceipt",
      "assignUnmatchedReceipt",
      "refundUnmatchedReceipt",
      "recordSweeps",
      "listSweeps",
      "retrieveSweep",
      "listFlushRules",
      "setFlushRule",
      "removeFlushRule",
      "listLedgerEntries",
      "ledgerTotals",
      "exportLedgerCsv",
      "createWebhookEndpoint",
      "listWebhookEndpoints",
      "retrieveWebhookEndpoint",
      "updateWebhookEndpoint",
      "deleteWebhookEndpoint",
      "rotateWebhookEndpointSecret",
      "listWebhookDeliveries",
      "redeliverFailedWebhookDeliveries",
      "redeliverWebhookDelivery",
    ]);
  });
});

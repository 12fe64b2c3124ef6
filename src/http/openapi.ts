// The OpenAPI 3.1 document of the REST API, generated from the zod schemas that validate the
// requests (the core's) and type the responses (each resource's schemas.ts), so it cannot drift from
// the service: the test suite also checks every response it receives against it. Each resource of
// src/http/v1 describes its operations in its own openapi.ts; this file puts them in one document,
// in the order the document has always listed them.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { registerEventPaths, registerEventWebhook } from "./v1/events/openapi.ts";
import { registerMerchantPricingPaths } from "./v1/merchant-pricing/openapi.ts";
import { BEARER, json } from "./v1/openapi-shared.ts";
import { registerInvoicePaths } from "./v1/invoices/openapi.ts";
import { registerRefundPaths } from "./v1/refunds/openapi.ts";
import { registerFlushRulePaths } from "./v1/flush-rules/openapi.ts";
import { registerSettlementPaths } from "./v1/settlements/openapi.ts";
import { registerLedgerPaths } from "./v1/ledger/openapi.ts";
import { registerTestHelperPaths } from "./v1/test-helpers/openapi.ts";
import { registerTransactionPaths } from "./v1/transactions/openapi.ts";
import { registerWebhookEndpointPaths } from "./v1/webhook-endpoints/openapi.ts";

export const HealthResponse = z
  .object({
    status: z.enum(["ok", "error"]),
    database: z.enum(["ok", "unreachable"]),
    migrations: z.enum(["applied", "missing", "unknown"]),
    pending: z.array(z.string()).optional(),
    chain_nodes: z
      .array(
        z.object({
          network: z.string().meta({ example: "ethereum" }),
          mode: z.enum(["live", "test"]),
          backend: z.string().meta({ description: "esplora or evm (JSON-RPC; TRON's too)" }),
          healthy: z.int().meta({ description: "Nodes that may be read now; 0: initiate on this network answers 503 node_unavailable" }),
          nodes: z.array(
            z.object({
              node: z.int().meta({ description: "The node's place in its variable's list, 1 = first" }),
              host: z.string().meta({ description: "Host and port only, never the URL's path or credentials" }),
              state: z.enum(["healthy", "unknown", "failing", "lagging", "wrong_chain"]),
              head: z.int().nullable(),
              retry_at: z.string().nullable().meta({ description: "When a node set aside is probed again" }),
            }),
          ),
        }),
      )
      .optional()
      .meta({
        description:
          "Each network and mode's chain nodes (failover, in the order of their variable's list). Informational: nodes never make the instance unready; a network with none healthy refuses initiate on it (503).",
      }),
  })
  .meta({ id: "Readiness" });

export function openApiDocument(): ReturnType<OpenApiGeneratorV31["generateDocument"]> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", BEARER, {
    type: "http",
    scheme: "bearer",
    description: "`pub_test_…`/`pub_live_…` (public), `sec_test_…`/`sec_live_…` (secret). The key's mode decides test or live.",
  });
  registerTransactionPaths(registry);
  registerEventPaths(registry);
  registerMerchantPricingPaths(registry);
  registerTestHelperPaths(registry);

  // The probes, served by src/app.ts: no resource of their own.
  registry.registerPath({
    method: "get",
    path: "/livez",
    operationId: "live",
    summary: "Liveness",
    security: [],
    responses: { 200: json(z.object({ status: z.literal("ok") }), "The process serves.") },
  });
  for (const [path, operationId] of [
    ["/readyz", "ready"],
    ["/healthz", "health"],
  ] as const) {
    registry.registerPath({
      method: "get",
      path,
      operationId,
      summary: path === "/readyz" ? "Readiness" : "Readiness (older name of /readyz)",
      security: [],
      responses: {
        200: json(HealthResponse, "The database answers and has every migration of this version."),
        503: json(HealthResponse, "Not ready: the database does not answer, or migrations are pending."),
      },
    });
  }

  registerRefundPaths(registry);
  registerInvoicePaths(registry);
  registerSettlementPaths(registry);
  registerFlushRulePaths(registry);
  registerLedgerPaths(registry);
  registerWebhookEndpointPaths(registry);
  registerEventWebhook(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "paygate",
      version: "1.0.0",
      description:
        "Crypto payments priced in fiat. The specification is docs/specification.md; errors, idempotency, modes and the lifecycle are described in docs/rest-api.md and docs/lifecycle.md. GraphQL is served at /graphql (schema.graphql). Pages on other origins may call initialize, retrieve and /graphql (CORS) with a public key; a secret key from a browser is refused with 403 (docs/rest-api.md, Browsers and CORS).",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/", description: "This service" }],
  });
}

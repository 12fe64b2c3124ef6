// The OpenAPI document: served, lint-clean, rendered locally at /docs, and able to catch a response
// that drifts from it (every test gateway checks every response against it: test/support/openapi-conformance.ts).
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET_KEY_IN_BROWSER } from "../../src/edge/cors.ts";
import { openApiDocument } from "../../src/http/openapi.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { OpenApiConformance } from "../support/openapi-conformance.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("the OpenAPI document", () => {
  it("is served at /openapi.json as generated, and documents every REST route", async () => {
    const res = await fetch(`${t.url}/openapi.json`);
    expect(res.status).toBe(200);
    const served = (await res.json()) as ReturnType<typeof openApiDocument>;
    expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    expect(served.openapi).toBe("3.1.0");
    expect(Object.keys(served.paths ?? {}).sort()).toEqual(
      [
        "/healthz",
        "/livez",
        "/readyz",
        "/v1/test_helpers/transaction/{transaction_id}/expire",
        "/v1/test_helpers/transaction/{transaction_id}/payment",
        "/v1/transaction",
        "/v1/transaction/{transaction_id}",
        "/v1/transaction/{transaction_id}/pay",
        "/v1/transactions",
        "/v1/events",
        "/v1/events/{event_id}",
        "/v1/events/stream",
        "/v1/merchant/pricing",
        "/v1/webhook_endpoints",
        "/v1/webhook_endpoints/{endpoint_id}",
        "/v1/webhook_endpoints/{endpoint_id}/rotate_secret",
        "/v1/webhook_endpoints/{endpoint_id}/deliveries",
        "/v1/webhook_endpoints/{endpoint_id}/redeliver_failed",
        "/v1/webhook_deliveries/{delivery_id}/redeliver",
        // Refunds (issue 26).
        "/v1/transaction/{transaction_id}/refunds",
        "/v1/refunds",
        "/v1/refunds/{refund_id}",
        "/v1/refunds/{refund_id}/cancel",
        "/v1/refunds/{refund_id}/mark_paid",
        // Invoices (issue 44).
        "/v1/invoices",
        "/v1/invoices/{invoice_id}",
        "/v1/invoices/{invoice_id}/pdf",
        "/v1/invoices/{invoice_id}/finalize",
        "/v1/invoices/{invoice_id}/void",
        "/v1/ledger/entries",
        "/v1/ledger/entries.csv",
        "/v1/ledger/totals",
        // Consolidations (issue 40).
        "/v1/settlements/consolidations",
        "/v1/settlements/consolidations/{consolidation_id}",
        "/v1/settlements/consolidations/{consolidation_id}/cancel",
        "/v1/settlements/flushes",
        "/v1/settlements/flushes/{flush_id}",
        "/v1/settlements/forwarders",
        "/v1/settlements/forwarders/{network}",
        "/v1/settlements/flush-rules",
        "/v1/settlements/flush-rules/{network}",
        "/v1/settlements/sweep-plan",
        // Sweeps the merchant sent, recorded (issue 40).
        "/v1/settlements/sweeps",
        "/v1/settlements/sweeps/{sweep_id}",
        // TRON own addresses and unmatched receipts (issue 40).
        "/v1/settlements/own-addresses",
        "/v1/settlements/own-addresses/{network}",
        "/v1/settlements/unmatched-receipts",
        "/v1/settlements/unmatched-receipts/{receipt_id}",
        "/v1/settlements/unmatched-receipts/{receipt_id}/assign",
        "/v1/settlements/unmatched-receipts/{receipt_id}/refund",
      ].sort(),
    );
  });

  it("passes Redocly's recommended lint rules", async () => {
    // Probes have no client errors to document; every other rule applies.
    const config = await createConfig({ extends: ["recommended"], rules: { "operation-4xx-response": "off" } });
    const problems = await lintFromString({ source: JSON.stringify(openApiDocument()), absoluteRef: "openapi.json", config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ""}`)).toEqual([]);
  });

  it("documents the spec's statuses and messages on initialize and initiate", () => {
    const doc = openApiDocument();
    const paths = doc.paths as Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: { message: string } }> }> }> }>
    >;
    const initialize = paths["/v1/transaction"]?.post?.responses ?? {};
    // 401: an unknown secret key sent with the public key to set the merchant's rules (issue 41).
    expect(Object.keys(initialize).sort()).toEqual(["201", "400", "401", "403", "404", "409", "413", "415", "422", "429", "500", "503"]);
    expect(initialize["403"]?.content?.["application/json"]?.examples?.merchant_rule_needs_secret_key?.value.message).toMatch(
      /^underpayment_tolerance is the merchant's rule, not the customer's/,
    );
    expect(initialize["401"]?.content?.["application/json"]?.examples?.invalid_secret_key?.value.message).toBe("Invalid Secret Key");
    expect(initialize["400"]?.content?.["application/json"]?.examples?.invalid_request?.value.message).toBe("Validation Error");
    expect(initialize["404"]?.content?.["application/json"]?.examples?.invalid_public_key?.value.message).toBe("Invalid Public Key");
    const initiate = paths["/v1/transaction/{transaction_id}/pay"]?.post?.responses ?? {};
    expect(initiate["400"]?.content?.["application/json"]?.examples?.invalid_request?.value.message).toBe("Missing or invalid payload fields");
    expect(initiate["422"]?.content?.["application/json"]?.examples?.transaction_not_initiated?.value.message).toBe(
      "The transaction is not initiated",
    );
  });

  it("documents the 403 for a secret key from a browser on every REST route that takes a key", () => {
    const doc = openApiDocument();
    const paths = doc.paths as Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: { message: string } }> }> }> }>
    >;
    const keyed = Object.entries(paths).filter(([path]) => path.startsWith("/v1/"));
    expect(keyed.length).toBe(8 + 6 + 1 + 5 + 1 + 5 + 3 + 4 + 3 + 2 + 1 + 6 + 2); // + the webhook endpoints' 6 and the event stream (issue 27), the refunds' 5 (issue 26), /v1/merchant/pricing, the invoices' 5 with the PDF (issue 44), the consolidations' 3, the forwarders' and flushes' 4, the ledger's 3, the flush rules' 2, the sweep plan, the own addresses' and unmatched receipts' 6, the sweeps' 2 (issue 40)
    for (const [, item] of keyed) {
      for (const operation of Object.values(item)) {
        expect(operation.responses["403"]?.content?.["application/json"]?.examples?.secret_key_in_browser?.value.message).toBe(SECRET_KEY_IN_BROWSER);
      }
    }
  });

  it("catches a response that drifts from it", () => {
    const conformance = new OpenApiConformance();
    const good = { status: "error", message: "Invalid Public Key", code: "not_found", reason: "invalid_public_key", errors: [] };
    expect(conformance.check("POST", "/v1/transaction", 404, good)).toEqual([]);
    expect(conformance.check("POST", "/v1/transaction", 404, { ...good, code: "teapot" })).not.toEqual([]);
    expect(conformance.check("POST", "/v1/transaction", 418, good)).toEqual(["POST /v1/transaction → 418: status not documented"]);
    const missingField = { status: "success", data: { id: "x" }, meta: {} };
    expect(conformance.check("GET", "/v1/transaction/abc", 200, missingField).join("\n")).toMatch(/must have required property 'reference'/);
    expect(conformance.check("GET", "/graphql", 200, {})).toEqual([]); // not a documented REST route
  });
});

describe("the reference page", () => {
  it("renders the document with Swagger UI served by paygate itself", async () => {
    const res = await fetch(`${t.url}/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('src="docs/assets/swagger-ui-bundle.js"');
    expect(html).toContain('url: "openapi.json"');
    expect(html).toContain("validatorUrl: null");
    expect(html).not.toMatch(/(src|href)="https?:/);
    const bundle = await fetch(`${t.url}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toMatch(/javascript/);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    expect((await fetch(`${t.url}/docs/assets/no-such-file.js`)).status).toBe(404);
  });

  it("sends /docs/ (a trailing slash, where its relative links would break) back to /docs", async () => {
    const slash = await fetch(`${t.url}/docs/`, { redirect: "manual" });
    expect(slash.status).toBe(301);
    expect(slash.headers.get("location")).toBe("../docs");
    const followed = await fetch(`${t.url}/docs/?x=1`);
    expect(followed.url).toBe(`${t.url}/docs`);
    expect(await followed.text()).toContain('src="docs/assets/swagger-ui-bundle.js"');
  });
});

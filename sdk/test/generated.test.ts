// The committed REST types must be what `npm run sdk:generate` writes from the OpenAPI document now.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { SDK_OPENAPI_TYPES, sdkOpenApiTypes } from "../../scripts/sdk-generate.ts";

it("has fresh REST types from the served OpenAPI document (run `npm run sdk:generate` when this fails)", async () => {
  const committed = readFileSync(SDK_OPENAPI_TYPES, "utf8");
  const fresh = await sdkOpenApiTypes();
  expect(committed === fresh, "sdk/src/generated/openapi.ts is stale: run `npm run sdk:generate`").toBe(true);
  // It is the document the service serves: every documented path is a key of `paths`.
  expect(fresh).toMatch(/"\/v1\/transaction\/\{transaction_id\}\/pay": \{/);
  expect(fresh).toMatch(
    /WebhookPayload: components\["schemas"\]\["PaymentWebhook"\] \| components\["schemas"\]\["RefundWebhook"\] \| components\["schemas"\]\["SettlementWebhook"\] \| components\["schemas"\]\["FlushWebhook"\] \| components\["schemas"\]\["UnmatchedReceiptWebhook"\] \| components\["schemas"\]\["SweepWebhook"\] \| components\["schemas"\]\["InvoiceWebhook"\] \| components\["schemas"\]\["TestWebhook"\]/,
  );
}, 60_000);

// The OpenAPI description of the test-mode helpers (stand-ins for the chain and the clock),
// assembled into the document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { errors } from "../../../core/errors.ts";
import { TestPaymentBody } from "../../../core/transactions/test-helpers.ts";
import { ANY, type ErrorCase, errorResponses, json, limited, secretKey, WITH_BODY, WITH_PATH } from "../openapi-shared.ts";
import { INITIATE_VALIDATION, SECRET, transactionId } from "../transactions/openapi.ts";
import { TransactionResponse } from "../transactions/schemas.ts";

export function registerTestHelperPaths(registry: OpenAPIRegistry): void {
  const testHelper = (action: "payment" | "expire", summary: string, description: string, extra: ErrorCase[]) =>
    registry.registerPath({
      method: "post",
      path: `/v1/test_helpers/transaction/{transaction_id}/${action}`,
      operationId: action === "payment" ? "recordTestPayment" : "expireTestTransaction",
      summary,
      description,
      security: secretKey,
      request: {
        params: transactionId,
        ...(action === "payment" ? { body: json(TestPaymentBody, "The amount received; omitted: what is still owed.") } : {}),
      },
      responses: {
        200: limited(TransactionResponse, "The transaction (table 2.2)."),
        ...errorResponses([
          ...SECRET,
          {
            error: errors.testModeOnly(),
            when: "a live secret key",
          },
          {
            error: errors.merchantInactive(),
            when: "an inactive merchant",
          },
          ...extra,
          ...WITH_PATH,
          ...WITH_BODY,
          ...ANY,
        ]),
      },
    });
  testHelper("payment", "Test mode: record a payment", "Records a confirmed receipt as the chain watcher would (docs/lifecycle.md).", [
    { ...INITIATE_VALIDATION, when: "an amount that is not a positive decimal within the coin's precision" },
    {
      error: errors.testPaymentBeforeInitiate(),
      when: "no coin chosen yet; nothing owed gives reason nothing_owed",
    },
  ]);
  testHelper("expire", "Test mode: expire now", "Ends the checkout window now: an open transaction becomes ABANDONED.", [
    { ...INITIATE_VALIDATION, when: "invalid JSON" },
    {
      error: errors.transactionClosed(),
      when: "SUCCESSFUL or ABANDONED",
    },
  ]);
}

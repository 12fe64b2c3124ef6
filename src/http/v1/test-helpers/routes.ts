// REST controllers of the test-mode helpers (not in the spec): stand-ins for the chain and the clock.
// The rules (test mode only, what a payment may be) are the core's (src/core/transactions/test-helpers.ts).
import { Router } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { jsonBody } from "../../body.ts";
import { sendPayable } from "../transactions/routes.ts";

export function testHelperRoutes(gateway: PaymentGateway): Router {
  const router = Router();

  router.post("/v1/test_helpers/transaction/:transaction_id/payment", noStore, jsonBody(errors.initiateValidation), async (req, res) => {
    const paid = await gateway.payments.recordTestPayment({
      bearerToken: bearerToken(req.headers.authorization),
      transactionId: String(req.params.transaction_id),
      body: req.body,
    });
    sendPayable(res, paid);
  });

  router.post("/v1/test_helpers/transaction/:transaction_id/expire", noStore, jsonBody(errors.initiateValidation), async (req, res) => {
    const expired = await gateway.payments.expireTestTransaction({
      bearerToken: bearerToken(req.headers.authorization),
      transactionId: String(req.params.transaction_id),
    });
    sendPayable(res, expired);
  });

  return router;
}

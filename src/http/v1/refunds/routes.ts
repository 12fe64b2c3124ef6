// REST controllers of refunds (issue 26; docs/refunds.md): parse the request, call the core, shape
// the reply. Secret key only; the rules are the core's (src/core/refunds).
import { Router, type Request, type Response } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { RefundOutcome } from "../../../core/refunds/refunds.ts";
import { bearerToken, idempotencyKeyHeader, noStore } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { jsonBody } from "../../body.ts";
import type { RefundListResponse, RefundResponse, TransactionRefundsResponse } from "./schemas.ts";

function sendRefund(res: Response, outcome: RefundOutcome, status = 200): void {
  res.locals.merchantId = outcome.merchantId;
  if (outcome.replayed) res.setHeader("Idempotent-Replayed", "true");
  const body: RefundResponse = { status: "success", data: outcome.refund, meta: {} };
  res.status(outcome.replayed ? 200 : status).json(body);
}

export function refundRoutes(gateway: PaymentGateway): Router {
  const router = Router();
  // The key's access; each use case checks what its role may do (changes audited as the key, from the client's address).
  const owner = (req: Request) => gateway.access.key(bearerToken(req.headers.authorization), clientAddress(req));

  router.post("/v1/transaction/:transaction_id/refunds", noStore, jsonBody(errors.refundValidation), async (req, res) => {
    const outcome = await gateway.refunds.createRefund(await owner(req), {
      transactionId: String(req.params.transaction_id),
      body: req.body,
      idempotencyKey: idempotencyKeyHeader(req.headers["idempotency-key"]),
    });
    sendRefund(res, outcome, 201);
  });

  router.get("/v1/transaction/:transaction_id/refunds", noStore, async (req, res) => {
    const found = await gateway.refunds.transactionRefunds(await owner(req), String(req.params.transaction_id));
    res.locals.merchantId = found.merchantId;
    const body: TransactionRefundsResponse = { status: "success", data: found.refunds, meta: { amount_refundable: found.amountRefundable } };
    res.status(200).json(body);
  });

  router.get("/v1/refunds", noStore, async (req, res) => {
    const page = await gateway.refunds.listRefunds(await owner(req), { ...req.query });
    res.locals.merchantId = page.merchantId;
    const body: RefundListResponse = { status: "success", data: page.refunds, has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/refunds/:refund_id", noStore, async (req, res) => {
    sendRefund(res, await gateway.refunds.retrieveRefund(await owner(req), String(req.params.refund_id)));
  });

  router.post("/v1/refunds/:refund_id/cancel", noStore, jsonBody(errors.refundValidation), async (req, res) => {
    sendRefund(res, await gateway.refunds.cancelRefund(await owner(req), String(req.params.refund_id)));
  });

  router.post("/v1/refunds/:refund_id/mark_paid", noStore, jsonBody(errors.refundValidation), async (req, res) => {
    sendRefund(res, await gateway.refunds.markRefundPaid(await owner(req), String(req.params.refund_id), req.body));
  });

  return router;
}

// REST controllers of spec 4.1 and 4.2, a transaction's retrieve and the list of them (issue 13): parse
// the HTTP request, call the core, shape the reply.
import { Router, type Response } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { TransactionDetails } from "../../../core/transactions/details.ts";
import { bearerToken, idempotencyKeyHeader, noStore } from "../../../edge/headers.ts";
import { jsonBody } from "../../body.ts";
import { initializedTransaction, initiatedTransaction, success } from "./presenters.ts";
import type { TransactionListResponse } from "./schemas.ts";

export function transactionRoutes(gateway: PaymentGateway): Router {
  const router = Router();

  router.post("/v1/transaction", noStore, jsonBody(errors.initializeValidation), async (req, res) => {
    const initialized = await gateway.payments.initializeTransaction({
      bearerToken: bearerToken(req.headers.authorization),
      body: req.body,
      idempotencyKey: idempotencyKeyHeader(req.headers["idempotency-key"]),
    });
    res.locals.merchantId = initialized.transaction.merchantId;
    if (initialized.replayed) res.setHeader("Idempotent-Replayed", "true");
    res.status(201).json(success(initializedTransaction(initialized), initialized.transaction.requestMeta));
  });

  router.post("/v1/transaction/:transaction_id/pay", noStore, jsonBody(errors.initiateValidation), async (req, res) => {
    const initiated = await gateway.payments.initiatePayment({
      bearerToken: bearerToken(req.headers.authorization),
      transactionId: String(req.params.transaction_id),
      body: req.body,
      idempotencyKey: idempotencyKeyHeader(req.headers["idempotency-key"]),
    });
    if (initiated.replayed) res.setHeader("Idempotent-Replayed", "true");
    sendPayable(res, initiated);
  });

  // Not in the spec: what a checkout page (public key) or the merchant (secret key) polls.
  router.get("/v1/transaction/:transaction_id", noStore, async (req, res) => {
    const id = String(req.params.transaction_id);
    const { details, caller } = await gateway.payments.transactionDetails(bearerToken(req.headers.authorization), id);
    res.locals.merchantId = caller.merchant.id;
    if (!details) throw await gateway.payments.transactionNotFound(caller, id);
    if (caller.keyKind !== "SECRET") return sendPayable(res, details);
    // A secret key also sees the refunds and what is left to refund (issue 26): fields added to table 2.2.
    const summary = (await gateway.refunds.refundSummaries([details.transaction])).get(details.transaction.id);
    res.locals.merchantId = details.transaction.merchantId;
    // Assigned onto the presenter's object, not spread into a copy: a key added to a spread copy costs microseconds on Node 20.
    res.status(200).json(success(Object.assign(initiatedTransaction(details), summary), details.transaction.requestMeta));
  });

  router.get("/v1/transactions", noStore, async (req, res) => {
    // A secret key only reaches here: it is shown the client secrets, as on GET /v1/transaction/:id.
    const page = await gateway.payments.listTransactionDetails(bearerToken(req.headers.authorization), { ...req.query });
    res.locals.merchantId = page.merchantId;
    // With each transaction's refunds and what is left to refund (issue 26), as GET /v1/transaction/:id shows a secret key.
    const summaries = await gateway.refunds.refundSummaries(page.details.map((d) => d.transaction));
    const data = page.details.map((d) => Object.assign(initiatedTransaction(d), summaries.get(d.transaction.id)));
    const body: TransactionListResponse = { status: "success", data, has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  return router;
}

/** 200 with the envelope of table 2.2: the core's details (the QR code, payment state, checkout link, receipts), shaped. */
export function sendPayable(res: Response, details: TransactionDetails): void {
  res.locals.merchantId = details.transaction.merchantId;
  res.status(200).json(success(initiatedTransaction(details), details.transaction.requestMeta));
}

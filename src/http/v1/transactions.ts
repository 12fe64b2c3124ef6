// REST controllers of spec 4.1 and 4.2: parse the HTTP request, call the core, shape the reply.
import { Router } from "express";
import { errors } from "../../core/errors.ts";
import type { PaymentGateway } from "../../core/gateway.ts";
import { bearerToken } from "../../core/merchants/credentials.ts";
import { jsonBody } from "../body.ts";
import { initializedTransaction, initiatedTransaction, success } from "../presenters.ts";

export function transactionRoutes(gateway: PaymentGateway): Router {
  const router = Router();

  router.post("/v1/transaction", jsonBody(errors.initializeValidation), async (req, res) => {
    const transaction = await gateway.initializeTransaction({
      bearerToken: bearerToken(req.headers.authorization),
      body: req.body,
    });
    res.status(201).json(success(initializedTransaction(transaction), transaction.requestMeta));
  });

  router.post("/v1/transaction/:transaction_id/pay", jsonBody(errors.initiateValidation), async (req, res) => {
    const transaction = await gateway.initiatePayment({
      bearerToken: bearerToken(req.headers.authorization),
      transactionId: String(req.params.transaction_id),
      body: req.body,
    });
    const paymentRequest = await gateway.paymentRequest(transaction);
    res.status(200).json(success(initiatedTransaction(transaction, paymentRequest?.qrCode ?? null), transaction.requestMeta));
  });

  // Not in the spec: what a checkout page (public key) or the merchant (secret key) polls.
  router.get("/v1/transaction/:transaction_id", async (req, res) => {
    const id = String(req.params.transaction_id);
    const { transaction } = await gateway.retrieveTransaction(bearerToken(req.headers.authorization), id);
    if (!transaction) throw errors.transactionNotFound(id);
    const paymentRequest = await gateway.paymentRequest(transaction);
    res.status(200).json(success(initiatedTransaction(transaction, paymentRequest?.qrCode ?? null), transaction.requestMeta));
  });

  return router;
}

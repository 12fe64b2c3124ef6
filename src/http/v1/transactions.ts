// REST controllers of spec 4.1 and 4.2: parse the HTTP request, call the core, shape the reply.
import { Router, type Response } from "express";
import { errors } from "../../core/errors.ts";
import type { PaymentGateway } from "../../core/gateway.ts";
import type { TransactionRecord } from "../../core/transactions/record.ts";
import { clientSecretVisibleTo } from "../../core/transactions/retrieve.ts";
import { bearerToken, idempotencyKeyHeader, noStore } from "../headers.ts";
import { jsonBody } from "../body.ts";
import { initializedTransaction, initiatedTransaction, success } from "../presenters.ts";

export function transactionRoutes(gateway: PaymentGateway): Router {
  const router = Router();

  router.post("/v1/transaction", noStore, jsonBody(errors.initializeValidation), async (req, res) => {
    const transaction = await gateway.initializeTransaction({
      bearerToken: bearerToken(req.headers.authorization),
      body: req.body,
      idempotencyKey: idempotencyKeyHeader(req.headers["idempotency-key"]),
    });
    res.locals.merchantId = transaction.merchantId;
    if (transaction.replayed) res.setHeader("Idempotent-Replayed", "true");
    res.status(201).json(success(initializedTransaction(transaction, await gateway.checkout(transaction)), transaction.requestMeta));
  });

  router.post("/v1/transaction/:transaction_id/pay", noStore, jsonBody(errors.initiateValidation), async (req, res) => {
    const transaction = await gateway.initiatePayment({
      bearerToken: bearerToken(req.headers.authorization),
      transactionId: String(req.params.transaction_id),
      body: req.body,
      idempotencyKey: idempotencyKeyHeader(req.headers["idempotency-key"]),
    });
    if (transaction.replayed) res.setHeader("Idempotent-Replayed", "true");
    await sendPayable(res, gateway, transaction, SECRET_KEY_CALLER);
  });

  // Not in the spec: what a checkout page (public key) or the merchant (secret key) polls.
  router.get("/v1/transaction/:transaction_id", noStore, async (req, res) => {
    const id = String(req.params.transaction_id);
    const { transaction, caller } = await gateway.retrieveTransaction(bearerToken(req.headers.authorization), id);
    res.locals.merchantId = caller.merchant.id;
    if (!transaction) throw errors.transactionNotFound(id);
    await sendPayable(res, gateway, transaction, clientSecretVisibleTo(caller));
  });

  // Test mode only (not in the spec): stand-ins for the chain and the clock.
  router.post("/v1/test_helpers/transaction/:transaction_id/payment", noStore, jsonBody(errors.initiateValidation), async (req, res) => {
    const transaction = await gateway.recordTestPayment({
      bearerToken: bearerToken(req.headers.authorization),
      transactionId: String(req.params.transaction_id),
      body: req.body,
    });
    await sendPayable(res, gateway, transaction, SECRET_KEY_CALLER);
  });

  router.post("/v1/test_helpers/transaction/:transaction_id/expire", noStore, jsonBody(errors.initiateValidation), async (req, res) => {
    const transaction = await gateway.expireTestTransaction({
      bearerToken: bearerToken(req.headers.authorization),
      transactionId: String(req.params.transaction_id),
    });
    await sendPayable(res, gateway, transaction, SECRET_KEY_CALLER);
  });

  return router;
}

/** Initiate and the test helpers take a secret key only, whose holder is shown the client secret. */
const SECRET_KEY_CALLER = true;

/** 200 with the envelope of table 2.2, the QR code, the payment's state, the checkout link and the receipts. */
async function sendPayable(res: Response, gateway: PaymentGateway, transaction: TransactionRecord, showClientSecret: boolean): Promise<void> {
  res.locals.merchantId = transaction.merchantId;
  // The client secret is opened (decrypted) only for a caller that is shown it.
  const [paymentRequest, checkout, receipts] = await Promise.all([
    gateway.paymentRequest(transaction),
    showClientSecret ? gateway.checkout(transaction) : null,
    gateway.receipts([transaction]),
  ]);
  const data = initiatedTransaction(transaction, gateway.describe(transaction), paymentRequest, checkout, receipts.get(transaction.id) ?? []);
  res.status(200).json(success(data, transaction.requestMeta));
}

// The OpenAPI description of the refund routes (issue 26; routes.ts beside it), assembled into the
// document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { parseListQuery } from "../../../core/lists.ts";
import { RefundListParams } from "../../../core/refunds/refunds.ts";
import {
  ANY,
  errorResponses,
  idempotencyKeyParam,
  json,
  KEY_ROLE,
  limited,
  refusalOf,
  SECRET_ONLY,
  secretKey,
  WITH_BODY,
  WITH_PATH,
} from "../openapi-shared.ts";
import { MarkPaidRequest, RefundListResponse, RefundRequest, RefundResponse, TransactionRefundsResponse } from "./schemas.ts";

const refundId = z.object({
  refund_id: z.string().meta({ param: { name: "refund_id", in: "path" }, description: "The refund's `id` (`re_…`)." }),
});
const transactionId = z.object({
  transaction_id: z.string().meta({ param: { name: "transaction_id", in: "path" }, description: "The transaction's `data.id` (a UUID)." }),
});
const idempotencyKey = idempotencyKeyParam("A retry with the same key and parameters answers with the refund the first request made.");

export function registerRefundPaths(registry: OpenAPIRegistry): void {
  const notFound = { error: errors.refundNotFound("…"), when: "an unknown id, another merchant's or the other mode's refund" };
  const notPending = { error: errors.refundNotPending("succeeded"), when: "the refund is no longer pending" };
  const validation = { error: errors.refundValidation([]), when: "missing or invalid fields; `errors` names each" };

  registry.registerPath({
    method: "post",
    path: "/v1/transaction/{transaction_id}/refunds",
    operationId: "createRefund",
    summary: "Refund a transaction",
    description:
      "Not in the spec (issue 26; docs/refunds.md): gives money back on a transaction that received it. The destination is the transaction's `refund_address` (checked again for the coin and network), else a claim link `refund_url`, shown once. Writes `refund.created`.",
    security: secretKey,
    request: { params: transactionId, headers: idempotencyKey, body: json(RefundRequest, "What to refund.") },
    responses: {
      200: limited(RefundResponse, "The refund an earlier request with the same Idempotency-Key and parameters made (`Idempotent-Replayed: true`)."),
      201: limited(RefundResponse, "The refund."),
      ...errorResponses([
        validation,
        SECRET_ONLY,
        KEY_ROLE,
        { error: errors.transactionNotFound("…"), when: "an unknown id, another merchant's or the other mode's transaction" },
        { error: errors.idempotencyConflict(), when: "an Idempotency-Key used with other parameters or for another operation" },
        { error: errors.refundOverLimit("0.0004 BTC"), when: "more than what is left to refund (`nothing_overpaid`, `nothing_received` alike)" },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/transaction/{transaction_id}/refunds",
    operationId: "listTransactionRefunds",
    summary: "A transaction's refunds",
    description: "Oldest first, with `meta.amount_refundable`: the confirmed amount paid less pending and succeeded refunds.",
    security: secretKey,
    request: { params: transactionId },
    responses: {
      200: limited(TransactionRefundsResponse, "The refunds."),
      ...errorResponses([
        SECRET_ONLY,
        { error: errors.transactionNotFound("…"), when: "an unknown id, another merchant's or the other mode's transaction" },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/refunds",
    operationId: "listRefunds",
    summary: "List refunds",
    description: "The secret key's merchant's refunds of its mode, newest first, paged as `/v1/transactions`.",
    security: secretKey,
    request: {
      query: z.object({
        limit: z
          .string()
          .optional()
          .meta({ param: { name: "limit", in: "query" }, description: "Items per page, 1–100; default 10." }),
        starting_after: z
          .string()
          .optional()
          .meta({ param: { name: "starting_after", in: "query" }, description: "The `id` of the last refund of the previous page." }),
        transaction: z
          .string()
          .optional()
          .meta({ param: { name: "transaction", in: "query" }, description: "Only this transaction's refunds (its id)." }),
      }),
    },
    responses: {
      200: limited(RefundListResponse, "A page of refunds."),
      ...errorResponses([
        {
          error: refusalOf(() => parseListQuery(RefundListParams, { limit: "0" })),
          when: "an invalid, repeated or unknown query parameter; the message and `errors` name each",
        },
        { error: errors.unknownCursor("starting_after", "…"), when: "a `starting_after` that is no refund of this merchant and mode" },
        SECRET_ONLY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/refunds/{refund_id}",
    operationId: "retrieveRefund",
    summary: "Retrieve a refund",
    description: "With `payment` (URI, QR, unsigned PSBT or EVM transaction) while it is pending and has a destination.",
    security: secretKey,
    request: { params: refundId },
    responses: { 200: limited(RefundResponse, "The refund."), ...errorResponses([SECRET_ONLY, notFound, ...WITH_PATH, ...ANY]) },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/refunds/{refund_id}/cancel",
    operationId: "cancelRefund",
    summary: "Cancel a refund",
    description: "Only while pending; writes `refund.canceled`, and its amount can be refunded again.",
    security: secretKey,
    request: { params: refundId },
    responses: {
      200: limited(RefundResponse, "The canceled refund."),
      ...errorResponses([SECRET_ONLY, KEY_ROLE, notFound, notPending, ...WITH_PATH, ...WITH_BODY, ...ANY]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/refunds/{refund_id}/mark_paid",
    operationId: "markRefundPaid",
    summary: "Mark a refund paid",
    description:
      "The merchant paid it from elsewhere: `tx_hash` is recorded (`paid_by` `merchant`, `verification` `pending`) and checked on chain; the refund succeeds (`refund.succeeded`) once it is verified. One chain transaction closes one refund: a hash that already closed another refund of the mode is refused (409 `refund_tx_hash_taken`).",
    security: secretKey,
    request: { params: refundId, body: json(MarkPaidRequest, "The transaction hash.") },
    responses: {
      200: limited(RefundResponse, "The refund, still pending until verified."),
      ...errorResponses([
        validation,
        SECRET_ONLY,
        KEY_ROLE,
        notFound,
        notPending,
        { error: errors.refundTxHashTaken("…"), when: "the transaction already closed another refund of the mode" },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });
}

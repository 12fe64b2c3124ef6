// The OpenAPI description of TRON own-address mode's routes (issue 40; own-addresses-routes.ts beside
// it), registered with the other settlement paths (openapi.ts).
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import {
  ANY,
  errorResponses,
  json,
  KEY_ROLE,
  limited,
  pageParams,
  SECRET_ONLY,
  secretKey,
  WITH_BODY,
  WITH_PATH,
  queryParam,
} from "../openapi-shared.ts";
import {
  AssignUnmatchedReceiptRequest,
  OwnAddressSettingListResponse,
  OwnAddressSettingRemovedResponse,
  OwnAddressSettingRequest,
  OwnAddressSettingResponse,
  RefundUnmatchedReceiptRequest,
  UnmatchedReceiptListResponse,
  UnmatchedReceiptResponse,
} from "./own-addresses-schemas.ts";

const networkParam = z.object({ network: z.string().meta({ param: { name: "network", in: "path" }, description: "A TRON network: `tron`." }) });
const receiptId = z.object({
  receipt_id: z.string().meta({ param: { name: "receipt_id", in: "path" }, description: "The unmatched receipt's `id` (`ur_…`)." }),
});
const notFound = { error: errors.unmatchedReceiptNotFound("…"), when: "an unknown id, another merchant's or the other mode's receipt" };
const notOpen = { error: errors.unmatchedReceiptNotOpen("assigned"), when: "the receipt was assigned or refunded already" };

export function registerOwnAddressPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/v1/settlements/own-addresses",
    operationId: "listOwnAddressSettings",
    summary: "List own-address settings",
    description:
      "Not in the spec (issue 40; docs/settlement.md): the TRON networks on which the key's mode's new payments go to the merchant's own addresses, told apart by unique amounts.",
    security: secretKey,
    responses: { 200: limited(OwnAddressSettingListResponse, "The settings, by network."), ...errorResponses([SECRET_ONLY, ...ANY]) },
  });

  registry.registerPath({
    method: "put",
    path: "/v1/settlements/own-addresses/{network}",
    operationId: "setOwnAddressSetting",
    summary: "Settle TRON payments to the merchant's own addresses",
    description:
      "New payments on the network (in the key's mode) go to one of the first `address_count` own addresses of the merchant's TRON key, and their amount becomes the locked amount plus a few base units no other open payment of that address has (the amount initiate answers). Payments already initiated keep their address and amount.",
    security: secretKey,
    request: { params: networkParam, body: json(OwnAddressSettingRequest, "How many own addresses.") },
    responses: {
      200: limited(OwnAddressSettingResponse, "The setting."),
      ...errorResponses([
        { error: errors.ownAddressValidation([]), when: "a network other than tron, or an address_count that is not an integer from 1 to 10" },
        SECRET_ONLY,
        KEY_ROLE,
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "delete",
    path: "/v1/settlements/own-addresses/{network}",
    operationId: "removeOwnAddressSetting",
    summary: "Stop settling TRON payments to own addresses",
    description: "New payments get a fresh address each again; payments already initiated keep their own address and amount.",
    security: secretKey,
    request: { params: networkParam },
    responses: {
      200: limited(OwnAddressSettingRemovedResponse, "The network is back on a fresh address per payment."),
      ...errorResponses([
        { error: errors.ownAddressValidation([]), when: "a network other than tron" },
        SECRET_ONLY,
        KEY_ROLE,
        { error: errors.ownAddressSettingNotFound("tron"), when: "no own-address setting for that network in this mode" },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/unmatched-receipts",
    operationId: "listUnmatchedReceipts",
    summary: "List unmatched receipts",
    description:
      "Transfers to the merchant's own TRON addresses that matched no open amount (an exchange withdrawal that deducted a fee, a partial payment, an amount sent after its hold ended), newest first.",
    security: secretKey,
    request: {
      query: z.object({
        ...pageParams("The `id` of the last receipt of the previous page."),
        state: queryParam("state", "Only receipts in this state: open, assigned or refunded."),
      }),
    },
    responses: {
      200: limited(UnmatchedReceiptListResponse, "A page of unmatched receipts."),
      ...errorResponses([{ error: errors.invalidListParameters([]), when: "a parameter that is unknown or out of range" }, SECRET_ONLY, ...ANY]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/unmatched-receipts/{receipt_id}",
    operationId: "retrieveUnmatchedReceipt",
    summary: "Retrieve an unmatched receipt",
    security: secretKey,
    request: { params: receiptId },
    responses: { 200: limited(UnmatchedReceiptResponse, "The receipt."), ...errorResponses([SECRET_ONLY, notFound, ...WITH_PATH, ...ANY]) },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/settlements/unmatched-receipts/{receipt_id}/assign",
    operationId: "assignUnmatchedReceipt",
    summary: "Assign an unmatched receipt to a transaction",
    description:
      "The transaction (the merchant's, in the key's mode, paid on the same address in the same coin) records the transfer as its receipt; the lifecycle decides what follows. Audited.",
    security: secretKey,
    request: { params: receiptId, body: json(AssignUnmatchedReceiptRequest, "The transaction.") },
    responses: {
      200: limited(UnmatchedReceiptResponse, "The receipt, assigned."),
      ...errorResponses([
        { error: errors.unmatchedReceiptValidation([]), when: "a missing transaction_id" },
        SECRET_ONLY,
        KEY_ROLE,
        notFound,
        { error: errors.transactionNotFound("…"), when: "an unknown transaction, another merchant's or the other mode's" },
        notOpen,
        {
          error: errors.unmatchedReceiptMismatch("the receipt was paid to T…, the transaction's address is T…"),
          when: "another network, coin or address",
        },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/settlements/unmatched-receipts/{receipt_id}/refund",
    operationId: "refundUnmatchedReceipt",
    summary: "Mark an unmatched receipt refunded",
    description: "The merchant paid the transfer back from its own wallet (the address is its own) and names that transaction. Audited.",
    security: secretKey,
    request: { params: receiptId, body: json(RefundUnmatchedReceiptRequest, "The refund transaction.") },
    responses: {
      200: limited(UnmatchedReceiptResponse, "The receipt, refunded."),
      ...errorResponses([
        { error: errors.unmatchedReceiptValidation([]), when: "a missing or malformed tx_hash" },
        SECRET_ONLY,
        KEY_ROLE,
        notFound,
        notOpen,
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });
}

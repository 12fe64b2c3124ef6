// TRON own-address mode's response shapes and request bodies (issue 40; docs/settlement.md, Own
// addresses) as zod schemas: the OpenAPI document and the webhook payload types come from them.
import { z } from "zod";
import { nullable } from "../openapi-shared.ts";

export const OwnAddressSetting = z
  .object({
    object: z.literal("own_address_setting"),
    network: z.string().meta({ example: "tron" }),
    is_live: z.boolean(),
    mode: z.literal("own_addresses"),
    address_count: z.number().int().meta({ description: "k: new payments go to the first k own addresses of the merchant's key." }),
    addresses: z
      .array(z.string())
      .meta({ description: "The own addresses (<account>/2/0 … k-1 of the merchant's TRON key); empty without a wallet." }),
    max_extra_units: z
      .number()
      .int()
      .meta({ description: "N: the most base units added to a payment's amount; each address holds N open payments at once." }),
    updated_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "OwnAddressSetting" });

export const OwnAddressSettingResponse = z
  .object({ status: z.literal("success"), data: OwnAddressSetting, meta: z.object({}) })
  .meta({ id: "OwnAddressSettingResponse" });
export const OwnAddressSettingListResponse = z
  .object({ status: z.literal("success"), data: z.array(OwnAddressSetting), meta: z.object({}) })
  .meta({ id: "OwnAddressSettingListResponse" });
export const OwnAddressSettingRemovedResponse = z
  .object({
    status: z.literal("success"),
    data: z.object({ network: z.string(), is_live: z.boolean(), mode: z.literal("unique_address") }),
    meta: z.object({}),
  })
  .meta({ id: "OwnAddressSettingRemovedResponse" });
export const OwnAddressSettingRequest = z
  .object({ address_count: z.number().int().meta({ description: "k, from 1 to 10.", example: 3 }) })
  .meta({ id: "OwnAddressSettingRequest" });

export const UnmatchedReceipt = z
  .object({
    id: z.string().meta({ example: "ur_0b7f6c2e-3d0e-4a59-9a55-2f8a1d0c4e11" }),
    object: z.literal("unmatched_receipt"),
    is_live: z.boolean(),
    network: z.string(),
    address: z.string().meta({ description: "The merchant's own address it was paid to." }),
    currency: z.string().meta({ example: "USDT" }),
    amount: z.string().meta({ description: "An exact decimal string in the coin." }),
    tx_hash: nullable(z.string()),
    log_index: nullable(z.number().int()),
    block_height: nullable(z.number().int()),
    confirmations: z.number().int().meta({ description: "As last seen." }),
    state: z.enum(["open", "assigned", "refunded"]).meta({ id: "UnmatchedReceiptState" }),
    transaction_id: nullable(z.string().meta({ description: "The transaction it was assigned to." })),
    refund_tx_hash: nullable(z.string().meta({ description: "The merchant's refund transaction, when marked refunded." })),
    seen_at: z.string().meta({ format: "date-time" }),
    updated_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "UnmatchedReceipt" });

export const UnmatchedReceiptResponse = z
  .object({ status: z.literal("success"), data: UnmatchedReceipt, meta: z.object({}) })
  .meta({ id: "UnmatchedReceiptResponse" });
export const UnmatchedReceiptListResponse = z
  .object({ status: z.literal("success"), data: z.array(UnmatchedReceipt), has_more: z.boolean(), meta: z.object({}) })
  .meta({ id: "UnmatchedReceiptListResponse" });
export const AssignUnmatchedReceiptRequest = z
  .object({
    transaction_id: z.string().meta({ description: "The transaction the transfer pays: the merchant's, in the key's mode, on the same address." }),
  })
  .meta({ id: "AssignUnmatchedReceiptRequest" });
export const RefundUnmatchedReceiptRequest = z
  .object({ tx_hash: z.string().meta({ description: "The refund transaction the merchant sent from its own wallet (64 hex digits)." }) })
  .meta({ id: "RefundUnmatchedReceiptRequest" });

export type OwnAddressSettingResponse = z.infer<typeof OwnAddressSettingResponse>;
export type OwnAddressSettingListResponse = z.infer<typeof OwnAddressSettingListResponse>;
export type OwnAddressSettingRemovedResponse = z.infer<typeof OwnAddressSettingRemovedResponse>;
export type UnmatchedReceiptResponse = z.infer<typeof UnmatchedReceiptResponse>;
export type UnmatchedReceiptListResponse = z.infer<typeof UnmatchedReceiptListResponse>;

// The flush rules' shapes (issue 40; docs/settlement.md, Flush rules) as zod schemas: the OpenAPI
// document is generated from them and the routes' bodies are typed by them.
import { z } from "zod";
import { nullable } from "../openapi-shared.ts";

const FiatValue = z.object({
  amount: z.string().meta({ description: "A decimal string with at most 2 decimals.", example: "500.00" }),
  currency: z.string().meta({ description: "USD or NGN: payments whose order is in this fiat count toward it.", example: "USD" }),
});

export const FlushRule = z
  .object({
    object: z.literal("flush_rule"),
    network: z.string().meta({ example: "ethereum" }),
    is_live: z.boolean(),
    min_payments: nullable(z.number().int().meta({ description: "Flush once this many settled payments wait; null: the operator's default." })),
    min_value: nullable(FiatValue.meta({ description: "Flush once the waiting payments' orders add up to this; null: no value threshold." })),
    max_age_hours: nullable(
      z.number().int().meta({ description: "Flush once the oldest has waited this long since final; null: the operator's default." }),
    ),
    updated_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "FlushRule" });

export const FlushRuleRequest = z
  .object({
    min_payments: nullable(z.number().int().min(1).max(100)).optional(),
    min_value: nullable(FiatValue).optional(),
    max_age_hours: nullable(z.number().int().min(1).max(2160)).optional(),
  })
  .meta({
    id: "FlushRuleRequest",
    description: "The whole rule: a threshold left out or null is the operator's default (value: none). At least one.",
  });

export const FlushRuleResponse = z.object({ status: z.literal("success"), data: FlushRule, meta: z.object({}) }).meta({ id: "FlushRuleResponse" });
export const FlushRuleListResponse = z
  .object({ status: z.literal("success"), data: z.array(FlushRule), meta: z.object({}) })
  .meta({ id: "FlushRuleListResponse" });
export const FlushRuleRemovedResponse = z
  .object({
    status: z.literal("success"),
    data: z.object({ network: z.string(), is_live: z.boolean(), removed: z.literal(true) }),
    meta: z.object({}),
  })
  .meta({ id: "FlushRuleRemovedResponse" });

export type FlushRuleResponse = z.infer<typeof FlushRuleResponse>;
export type FlushRuleListResponse = z.infer<typeof FlushRuleListResponse>;
export type FlushRuleRemovedResponse = z.infer<typeof FlushRuleRemovedResponse>;

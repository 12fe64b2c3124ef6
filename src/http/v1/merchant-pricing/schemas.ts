// The merchant's pricing as the REST API reads and sets it (issue 29; docs/pricing.md), as zod
// schemas: the route's reply is typed by them and the OpenAPI document (openapi.ts beside this file)
// is generated from them.
import { z } from "zod";

/** GET/POST /v1/merchant/pricing: the merchant's spread and price providers (docs/pricing.md). */
export const MerchantPricing = z
  .object({
    spread_percent: z.string().meta({
      description: 'Percent taken off the market rate in the merchant\'s favour at initiate (the customer sends more coin); "0": none.',
      example: "1.5",
    }),
    sources: z.array(z.string()).meta({
      description:
        "The providers the merchant chose, in its order; empty: the operator's (PAYGATE_PRICE_FEED). Live mode only: test mode is priced from the test rates.",
      example: ["coinbase", "kraken"],
    }),
    available_sources: z.array(z.string()).meta({ description: "The providers this instance offers (PAYGATE_PRICE_FEED), in the operator's order." }),
    minimum_sources: z.number().int().meta({ description: "How many providers a choice must name (the median's quorum; 1 otherwise)." }),
    spread_bounds: z
      .object({ min: z.string(), max: z.string() })
      .meta({ description: "The spread's bounds, percent (PAYGATE_MERCHANT_SPREAD_MAX_PERCENT)." }),
  })
  .meta({ id: "MerchantPricing" });

export const MerchantPricingBody = z
  .object({
    spread: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Percent, a decimal string within spread_bounds; null or "0": none. Absent: unchanged.', example: "1.5" }),
    sources: z
      .array(z.string())
      .nullable()
      .optional()
      .meta({
        description: "Providers of available_sources, in the order to ask them; null or []: the operator's. Absent: unchanged.",
        example: ["coinbase", "kraken"],
      }),
  })
  .meta({ id: "MerchantPricingBody" });

export const MerchantPricingResponse = z
  .object({ status: z.literal("success"), data: MerchantPricing, meta: z.object({}) })
  .meta({ id: "MerchantPricingResponse" });
export type MerchantPricingResponse = z.infer<typeof MerchantPricingResponse>;

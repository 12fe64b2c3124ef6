// The OpenAPI description of the merchant's pricing (routes.ts beside it), assembled into the
// document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { errors } from "../../../core/errors.ts";
import { ANY, errorResponses, json, KEY_ROLE, limited, SECRET_ONLY, secretKey, WITH_BODY } from "../openapi-shared.ts";
import { MerchantPricingBody, MerchantPricingResponse } from "./schemas.ts";

export function registerMerchantPricingPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/v1/merchant/pricing",
    operationId: "retrieveMerchantPricing",
    summary: "Retrieve the merchant's pricing",
    description:
      "Not in the spec (issue 29; docs/pricing.md): the secret key's merchant's spread and chosen price providers, with the providers this instance offers.",
    security: secretKey,
    responses: {
      200: limited(MerchantPricingResponse, "The merchant's pricing."),
      ...errorResponses([SECRET_ONLY, ...ANY]),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/merchant/pricing",
    operationId: "updateMerchantPricing",
    summary: "Set the merchant's pricing",
    description:
      "Not in the spec (issue 29; docs/pricing.md): sets the spread (percent off the market rate, in the merchant's favour) and/or the providers and their order; a field left out is unchanged. Applies to the next initiate of either mode (the providers to live mode only). Written to the merchant's audit log.",
    security: secretKey,
    request: { body: json(MerchantPricingBody, "The spread and/or the providers.") },
    responses: {
      200: limited(MerchantPricingResponse, "The merchant's pricing as set."),
      ...errorResponses([
        {
          error: errors.invalidPricing([{ field: "sources", message: "sources: unknown provider 'bitstamp'; the known ones are coingecko, kraken" }]),
          when: "a spread outside its bounds or not a decimal string, an unknown or repeated provider, fewer providers than the quorum, an unknown field; the message names each",
        },
        SECRET_ONLY,
        { error: errors.testKeyForLiveSetting("pricing"), when: "a test-mode secret key: pricing is what live payments use" },
        KEY_ROLE,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });
}

// REST controllers of the merchant's pricing (issue 29): its spread and price providers, read and
// set with the secret key. The rules (bounds, known providers) are the core's (merchants/pricing.ts).
import { Router } from "express";
import { errors, type FieldError, type PaygateError } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { MerchantPricing } from "../../../core/merchants/pricing.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { jsonBody } from "../../body.ts";
import type { MerchantPricingResponse } from "./schemas.ts";

export function merchantPricingRoutes(gateway: PaymentGateway): Router {
  const router = Router();

  router.get("/v1/merchant/pricing", noStore, async (req, res) => {
    const access = await gateway.access.key(bearerToken(req.headers.authorization));
    res.locals.merchantId = access.merchantId;
    res.status(200).json(pricingResponse(await gateway.merchants.pricing(access)));
  });

  router.post("/v1/merchant/pricing", noStore, jsonBody(invalidPricingBody), async (req, res) => {
    const body: unknown = req.body;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw errors.invalidPricing([
        { field: "body", message: 'the body must be a JSON object such as {"spread": "1.5", "sources": ["coinbase", "kraken"]}' },
      ]);
    }
    const { spread, sources, ...unknown } = body as Record<string, unknown>;
    const extra = Object.keys(unknown);
    if (extra.length > 0) {
      throw errors.invalidPricing(extra.map((field) => ({ field, message: `${field}: unknown field; send spread and/or sources` })));
    }
    const access = await gateway.access.key(bearerToken(req.headers.authorization), clientAddress(req));
    res.locals.merchantId = access.merchantId;
    res.status(200).json(pricingResponse(await gateway.merchants.setPricing(access, { spread, sources })));
  });

  return router;
}

const invalidPricingBody = (fieldErrors: FieldError[]): PaygateError => errors.invalidPricing(fieldErrors);

export function pricingResponse(p: MerchantPricing): MerchantPricingResponse {
  return {
    status: "success",
    data: {
      spread_percent: p.spreadPercent,
      sources: p.sources,
      available_sources: p.available,
      minimum_sources: p.minimumSources,
      spread_bounds: p.spreadBounds,
    },
    meta: {},
  };
}

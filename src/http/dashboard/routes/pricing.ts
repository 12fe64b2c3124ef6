// The merchant's pricing in the dashboard (issue 29): GET /pricing for every role, PUT /pricing for
// owners (the gateway authorizes, audits and rules; this only names fields).
import type { Router } from "express";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { MerchantPricing } from "../../../core/merchants/pricing.ts";
import { accessOf, bodyOf, sendData } from "../session.ts";

export function pricingRoutes(router: Router, gateway: PaymentGateway): void {
  router.get("/pricing", async (_req, res) => {
    sendData(res, pricingBody(await gateway.merchants.pricing(accessOf(gateway, res))));
  });

  router.put("/pricing", async (req, res) => {
    const { spread, sources } = bodyOf(req);
    sendData(res, pricingBody(await gateway.merchants.setPricing(accessOf(gateway, res), { spread, sources })));
  });
}

function pricingBody(p: MerchantPricing) {
  return {
    spread_percent: p.spreadPercent,
    sources: p.sources,
    available_sources: p.available,
    minimum_sources: p.minimumSources,
    spread_bounds: p.spreadBounds,
  };
}

// REST controllers of flush rules (issue 40; docs/settlement.md, Flush rules): when the flush job
// flushes a merchant's settled forwarders. Secret key only; the rules are the core's
// (src/core/settlement/flush-rules.ts).
import { Router, type Request } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { jsonBody } from "../../body.ts";
import type { FlushRuleListResponse, FlushRuleRemovedResponse, FlushRuleResponse } from "./schemas.ts";

export function flushRuleRoutes(gateway: PaymentGateway): Router {
  const router = Router();
  const owner = (req: Request) => gateway.access.key(bearerToken(req.headers.authorization), clientAddress(req));

  router.get("/v1/settlements/flush-rules", noStore, async (req, res) => {
    const access = await owner(req);
    const body: FlushRuleListResponse = { status: "success", data: await gateway.settlement.flushRules(access), meta: {} };
    res.locals.merchantId = access.merchantId;
    res.status(200).json(body);
  });

  router.put("/v1/settlements/flush-rules/:network", noStore, jsonBody(errors.flushRuleValidation), async (req, res) => {
    const access = await owner(req);
    const rule = await gateway.settlement.setFlushRule(access, String(req.params.network), req.body);
    res.locals.merchantId = access.merchantId;
    const body: FlushRuleResponse = { status: "success", data: rule, meta: {} };
    res.status(200).json(body);
  });

  router.delete("/v1/settlements/flush-rules/:network", noStore, async (req, res) => {
    const access = await owner(req);
    await gateway.settlement.removeFlushRule(access, String(req.params.network));
    res.locals.merchantId = access.merchantId;
    const body: FlushRuleRemovedResponse = {
      status: "success",
      data: { network: String(req.params.network).trim().toLowerCase(), is_live: access.isLive, removed: true },
      meta: {},
    };
    res.status(200).json(body);
  });

  return router;
}

// REST controllers of settlement (issue 40; docs/settlement.md): consolidations of settled BTC and LTC
// outputs. Secret key only; the rules are the core's (src/core/settlement).
import { Router, type Request, type Response } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { ConsolidationOutcome } from "../../../core/settlement/consolidations.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { jsonBody } from "../../body.ts";
import { ownAddressRoutes } from "./own-addresses-routes.ts";
import { sweepRoutes } from "./sweeps-routes.ts";
import type {
  ConsolidationListResponse,
  ConsolidationResponse,
  FlushListResponse,
  FlushResponse,
  ForwarderSettingListResponse,
  ForwarderSettingRemovedResponse,
  ForwarderSettingResponse,
  SweepPlanResponse,
} from "./schemas.ts";

function sendConsolidation(res: Response, outcome: ConsolidationOutcome, status = 200): void {
  res.locals.merchantId = outcome.merchantId;
  const body: ConsolidationResponse = { status: "success", data: outcome.consolidation, meta: {} };
  res.status(status).json(body);
}

export function settlementRoutes(gateway: PaymentGateway): Router {
  const router = Router();
  const owner = (req: Request) => gateway.access.key(bearerToken(req.headers.authorization), clientAddress(req));

  router.post("/v1/settlements/consolidations", noStore, jsonBody(errors.consolidationValidation), async (req, res) => {
    sendConsolidation(res, await gateway.settlement.createConsolidation(await owner(req), req.body), 201);
  });

  router.get("/v1/settlements/consolidations", noStore, async (req, res) => {
    const page = await gateway.settlement.listConsolidations(await owner(req), { ...req.query });
    res.locals.merchantId = page.merchantId;
    const body: ConsolidationListResponse = { status: "success", data: page.consolidations, has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/settlements/consolidations/:consolidation_id", noStore, async (req, res) => {
    sendConsolidation(res, await gateway.settlement.retrieveConsolidation(await owner(req), String(req.params.consolidation_id)));
  });

  router.post("/v1/settlements/consolidations/:consolidation_id/cancel", noStore, jsonBody(errors.consolidationValidation), async (req, res) => {
    sendConsolidation(res, await gateway.settlement.cancelConsolidation(await owner(req), String(req.params.consolidation_id)));
  });

  // ── Deposit forwarders on EVM networks ──

  router.get("/v1/settlements/forwarders", noStore, async (req, res) => {
    const access = await owner(req);
    const body: ForwarderSettingListResponse = { status: "success", data: await gateway.settlement.forwarderSettings(access), meta: {} };
    res.locals.merchantId = access.merchantId;
    res.status(200).json(body);
  });

  router.put("/v1/settlements/forwarders/:network", noStore, jsonBody(errors.forwarderValidation), async (req, res) => {
    const access = await owner(req);
    const setting = await gateway.settlement.setForwarderSetting(access, String(req.params.network), req.body);
    res.locals.merchantId = access.merchantId;
    const body: ForwarderSettingResponse = { status: "success", data: setting, meta: {} };
    res.status(200).json(body);
  });

  router.delete("/v1/settlements/forwarders/:network", noStore, async (req, res) => {
    const access = await owner(req);
    await gateway.settlement.removeForwarderSetting(access, String(req.params.network));
    res.locals.merchantId = access.merchantId;
    const data = { network: String(req.params.network).toLowerCase(), is_live: access.isLive, mode: "own_addresses" as const };
    const body: ForwarderSettingRemovedResponse = { status: "success", data, meta: {} };
    res.status(200).json(body);
  });

  router.post("/v1/settlements/flushes", noStore, jsonBody(errors.flushValidation), async (req, res) => {
    const access = await owner(req);
    const flush = await gateway.settlement.flushForwarders(access, req.body);
    res.locals.merchantId = access.merchantId;
    const body: FlushResponse = { status: "success", data: flush, meta: {} };
    res.status(201).json(body);
  });

  router.get("/v1/settlements/flushes", noStore, async (req, res) => {
    const access = await owner(req);
    const page = await gateway.settlement.listFlushes(access, { ...req.query });
    res.locals.merchantId = access.merchantId;
    const body: FlushListResponse = { status: "success", data: page.flushes, has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/settlements/flushes/:flush_id", noStore, async (req, res) => {
    const access = await owner(req);
    const body: FlushResponse = { status: "success", data: await gateway.settlement.retrieveFlush(access, String(req.params.flush_id)), meta: {} };
    res.locals.merchantId = access.merchantId;
    res.status(200).json(body);
  });

  // ── Sweep plans of per-payment addresses on account networks ──

  router.get("/v1/settlements/sweep-plan", noStore, async (req, res) => {
    const access = await owner(req);
    const body: SweepPlanResponse = { status: "success", data: await gateway.settlement.sweepPlan(access, { ...req.query }), meta: {} };
    res.locals.merchantId = access.merchantId;
    res.status(200).json(body);
  });
  // Sweeps the merchant sent, posted back and recorded (sweeps-routes.ts).
  router.use(sweepRoutes(gateway));
  // TRON own-address mode: its setting and unmatched receipts (own-addresses-routes.ts).
  router.use(ownAddressRoutes(gateway));

  return router;
}

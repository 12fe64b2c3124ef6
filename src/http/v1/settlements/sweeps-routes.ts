// REST controllers of recorded sweeps (issue 40; docs/settlement.md, Recording sweeps). Secret key only;
// the rules are the core's (src/core/settlement/sweeps.ts).
import { Router, type Request } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { jsonBody } from "../../body.ts";
import type { SweepListResponse, SweepRecordResponse, SweepResponse } from "./sweeps-schemas.ts";

export function sweepRoutes(gateway: PaymentGateway): Router {
  const router = Router();
  const owner = (req: Request) => gateway.access.key(bearerToken(req.headers.authorization), clientAddress(req));

  router.post("/v1/settlements/sweeps", noStore, jsonBody(errors.sweepRecordValidation), async (req, res) => {
    const access = await owner(req);
    const outcome = await gateway.settlement.recordSweeps(access, req.body);
    res.locals.merchantId = access.merchantId;
    const body: SweepRecordResponse = {
      status: "success",
      data: outcome.sweeps,
      meta: { recorded: outcome.recorded, already_recorded: outcome.alreadyRecorded },
    };
    res.status(outcome.recorded > 0 ? 201 : 200).json(body);
  });

  router.get("/v1/settlements/sweeps", noStore, async (req, res) => {
    const access = await owner(req);
    const page = await gateway.settlement.listSweeps(access, { ...req.query });
    res.locals.merchantId = access.merchantId;
    const body: SweepListResponse = { status: "success", data: page.sweeps, has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/settlements/sweeps/:sweep_id", noStore, async (req, res) => {
    const access = await owner(req);
    const body: SweepResponse = { status: "success", data: await gateway.settlement.retrieveSweep(access, String(req.params.sweep_id)), meta: {} };
    res.locals.merchantId = access.merchantId;
    res.status(200).json(body);
  });

  return router;
}

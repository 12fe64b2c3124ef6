// The dashboard's TRON own-address setting, unmatched receipts and sweep plans (issue 40;
// docs/settlement.md, Own addresses and Sweeping fresh addresses), each in the page's ?mode=. The
// settlement façade checks the role (`read`, or `manage_settlement` for changes and for a sweep plan,
// which names every address) and every rule, as for REST and the CLI.
import type { Request, Router } from "express";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { accessOf, bodyOf, isLiveOf, sendData } from "../session.ts";

/** The query without `mode` (the dashboard's, not the use case's): the lists refuse parameters they do not know. */
function queryOf(req: Request): Record<string, unknown> {
  const { mode: _mode, ...query } = req.query;
  return query;
}

export function ownAddressRoutes(router: Router, gateway: PaymentGateway): void {
  router.get("/settlement/own-addresses", async (req, res) => {
    sendData(res, { own_addresses: await gateway.settlement.ownAddressSettings(accessOf(gateway, res, isLiveOf(req))) });
  });

  router.post("/settlement/own-addresses/:network", async (req, res) => {
    const access = accessOf(gateway, res, isLiveOf(req));
    sendData(res, await gateway.settlement.setOwnAddressSetting(access, String(req.params.network), bodyOf(req)));
  });

  router.delete("/settlement/own-addresses/:network", async (req, res) => {
    const access = accessOf(gateway, res, isLiveOf(req));
    await gateway.settlement.removeOwnAddressSetting(access, String(req.params.network));
    sendData(res, { network: String(req.params.network).trim().toLowerCase(), is_live: access.isLive, mode: "unique_address" });
  });

  router.get("/settlement/unmatched-receipts", async (req, res) => {
    const page = await gateway.settlement.listUnmatchedReceipts(accessOf(gateway, res, isLiveOf(req)), queryOf(req));
    sendData(res, { receipts: page.receipts, has_more: page.hasMore });
  });

  router.post("/settlement/unmatched-receipts/:id/assign", async (req, res) => {
    const access = accessOf(gateway, res, isLiveOf(req));
    sendData(res, await gateway.settlement.assignUnmatchedReceipt(access, String(req.params.id), bodyOf(req)));
  });

  router.post("/settlement/unmatched-receipts/:id/refund", async (req, res) => {
    const access = accessOf(gateway, res, isLiveOf(req));
    sendData(res, await gateway.settlement.refundUnmatchedReceipt(access, String(req.params.id), bodyOf(req)));
  });

  router.get("/settlement/sweep-plan", async (req, res) => {
    sendData(res, await gateway.settlement.sweepPlan(accessOf(gateway, res, isLiveOf(req)), queryOf(req)));
  });
}

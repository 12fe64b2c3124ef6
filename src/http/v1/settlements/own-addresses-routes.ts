// REST controllers of TRON own-address mode (issue 40; docs/settlement.md, Own addresses): the setting
// per network and mode, and the unmatched receipts. Secret key only; the rules are the core's
// (src/core/own-addresses).
import { Router, type Request } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { jsonBody } from "../../body.ts";
import type {
  OwnAddressSettingListResponse,
  OwnAddressSettingRemovedResponse,
  OwnAddressSettingResponse,
  UnmatchedReceiptListResponse,
  UnmatchedReceiptResponse,
} from "./own-addresses-schemas.ts";

export function ownAddressRoutes(gateway: PaymentGateway): Router {
  const router = Router();
  const owner = (req: Request) => gateway.access.key(bearerToken(req.headers.authorization), clientAddress(req));

  router.get("/v1/settlements/own-addresses", noStore, async (req, res) => {
    const access = await owner(req);
    const body: OwnAddressSettingListResponse = { status: "success", data: await gateway.settlement.ownAddressSettings(access), meta: {} };
    res.locals.merchantId = access.merchantId;
    res.status(200).json(body);
  });

  router.put("/v1/settlements/own-addresses/:network", noStore, jsonBody(errors.ownAddressValidation), async (req, res) => {
    const access = await owner(req);
    const setting = await gateway.settlement.setOwnAddressSetting(access, String(req.params.network), req.body);
    res.locals.merchantId = access.merchantId;
    const body: OwnAddressSettingResponse = { status: "success", data: setting, meta: {} };
    res.status(200).json(body);
  });

  router.delete("/v1/settlements/own-addresses/:network", noStore, async (req, res) => {
    const access = await owner(req);
    await gateway.settlement.removeOwnAddressSetting(access, String(req.params.network));
    res.locals.merchantId = access.merchantId;
    const data = { network: String(req.params.network).trim().toLowerCase(), is_live: access.isLive, mode: "unique_address" as const };
    const body: OwnAddressSettingRemovedResponse = { status: "success", data, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/settlements/unmatched-receipts", noStore, async (req, res) => {
    const access = await owner(req);
    const page = await gateway.settlement.listUnmatchedReceipts(access, { ...req.query });
    res.locals.merchantId = access.merchantId;
    const body: UnmatchedReceiptListResponse = { status: "success", data: page.receipts, has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/settlements/unmatched-receipts/:receipt_id", noStore, async (req, res) => {
    const access = await owner(req);
    const data = await gateway.settlement.retrieveUnmatchedReceipt(access, String(req.params.receipt_id));
    res.locals.merchantId = access.merchantId;
    const body: UnmatchedReceiptResponse = { status: "success", data, meta: {} };
    res.status(200).json(body);
  });

  router.post("/v1/settlements/unmatched-receipts/:receipt_id/assign", noStore, jsonBody(errors.unmatchedReceiptValidation), async (req, res) => {
    const access = await owner(req);
    const data = await gateway.settlement.assignUnmatchedReceipt(access, String(req.params.receipt_id), req.body);
    res.locals.merchantId = access.merchantId;
    const body: UnmatchedReceiptResponse = { status: "success", data, meta: {} };
    res.status(200).json(body);
  });

  router.post("/v1/settlements/unmatched-receipts/:receipt_id/refund", noStore, jsonBody(errors.unmatchedReceiptValidation), async (req, res) => {
    const access = await owner(req);
    const data = await gateway.settlement.refundUnmatchedReceipt(access, String(req.params.receipt_id), req.body);
    res.locals.merchantId = access.merchantId;
    const body: UnmatchedReceiptResponse = { status: "success", data, meta: {} };
    res.status(200).json(body);
  });

  return router;
}

// The dashboard's refunds (issue 26; docs/refunds.md): POST /transactions/:id/refunds (the REST body and
// Idempotency-Key), GET /transactions/:id/refunds, GET /refunds/:id (how to pay it: PSBT in base64, EVM
// fields, URI and QR), GET /refunds/:id/psbt (the PSBT as a file for the merchant's wallet),
// POST /refunds/:id/cancel and POST /refunds/:id/mark_paid. All take ?mode=; each resolves the owner
// once (the gateway checks the role: read, or manage_refunds for a change) and runs the API's own use
// cases, so errors are the API's (error shape, status and reason).
import type { Request, Response, Router } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { idempotencyKeyHeader } from "../../../edge/headers.ts";
import { accessOf, isLiveOf, sendData } from "../session.ts";

export function refundRoutes(router: Router, gateway: PaymentGateway): void {
  const access = (req: Request, res: Response) => accessOf(gateway, res, isLiveOf(req));

  router.post("/transactions/:id/refunds", async (req, res) => {
    const outcome = await gateway.refunds.createRefund(access(req, res), {
      transactionId: String(req.params.id),
      body: req.body,
      idempotencyKey: idempotencyKeyHeader(req.headers["idempotency-key"]),
    });
    // As the API answers a replay: the first refund, 200, said in a header.
    if (outcome.replayed) res.setHeader("Idempotent-Replayed", "true");
    sendData(res, outcome.refund, outcome.replayed ? 200 : 201);
  });

  router.get("/transactions/:id/refunds", async (req, res) => {
    const found = await gateway.refunds.transactionRefunds(access(req, res), String(req.params.id));
    sendData(res, { refunds: found.refunds, amount_refundable: found.amountRefundable });
  });

  router.get("/refunds/:id", async (req, res) => {
    sendData(res, (await gateway.refunds.retrieveRefund(access(req, res), String(req.params.id))).refund);
  });

  router.get("/refunds/:id/psbt", async (req, res) => {
    const { refund } = await gateway.refunds.retrieveRefund(access(req, res), String(req.params.id));
    const psbt = refund.payment?.psbt;
    if (!psbt) throw errors.refundPsbtNotFound(refund.id);
    res.status(200);
    res.setHeader("Content-Type", "application/octet-stream");
    res.setHeader("Content-Disposition", `attachment; filename="refund-${refund.id}.psbt"`);
    // The binary form (BIP 174): what Sparrow, Electrum and hardware wallets' software import as a file.
    res.end(Buffer.from(psbt, "base64"));
  });

  router.post("/refunds/:id/cancel", async (req, res) => {
    sendData(res, (await gateway.refunds.cancelRefund(access(req, res), String(req.params.id))).refund);
  });

  router.post("/refunds/:id/mark_paid", async (req, res) => {
    sendData(res, (await gateway.refunds.markRefundPaid(access(req, res), String(req.params.id), req.body)).refund);
  });
}

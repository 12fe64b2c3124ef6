// REST controllers of the lists behind the merchant dashboard (issue 13), for integrators too:
// parse the request, call the core, shape the reply. The rules (filters, cursor) are the core's.
import { Router } from "express";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { eventObject, initiatedTransaction } from "../transactions/presenters.ts";
import type { TransactionListResponse } from "../transactions/schemas.ts";
import type { EventListResponse, EventResponse } from "./schemas.ts";

export function listRoutes(gateway: PaymentGateway): Router {
  const router = Router();

  router.get("/v1/transactions", noStore, async (req, res) => {
    // A secret key only reaches here: it is shown the client secrets, as on GET /v1/transaction/:id.
    const page = await gateway.listTransactionDetails(bearerToken(req.headers.authorization), { ...req.query });
    res.locals.merchantId = page.merchantId;
    // With each transaction's refunds and what is left to refund (issue 26), as GET /v1/transaction/:id shows a secret key.
    const summaries = await gateway.refundSummaries(page.details.map((d) => d.transaction));
    const data = page.details.map((d) => ({ ...initiatedTransaction(d), ...summaries.get(d.transaction.id) }));
    const body: TransactionListResponse = { status: "success", data, has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/events", noStore, async (req, res) => {
    const page = await gateway.listEvents(bearerToken(req.headers.authorization), { ...req.query });
    res.locals.merchantId = page.merchantId;
    const body: EventListResponse = { status: "success", data: page.events.map(eventObject), has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/events/:event_id", noStore, async (req, res) => {
    const { merchantId, event } = await gateway.retrieveEvent(bearerToken(req.headers.authorization), String(req.params.event_id));
    res.locals.merchantId = merchantId;
    const body: EventResponse = { status: "success", data: eventObject(event), meta: {} };
    res.status(200).json(body);
  });

  return router;
}

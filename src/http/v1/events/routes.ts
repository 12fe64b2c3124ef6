// REST controllers of the Events API (issue 13): the secret key's merchant's events of its mode, listed
// and one by one (stream.ts serves them live). Parse the request, call the core, shape the reply; the
// rules (filters, cursor) are the core's.
import { Router } from "express";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { eventObject } from "./presenters.ts";
import type { EventListResponse, EventResponse } from "./schemas.ts";

export function eventRoutes(gateway: PaymentGateway): Router {
  const router = Router();

  router.get("/v1/events", noStore, async (req, res) => {
    const page = await gateway.webhooks.listEvents(bearerToken(req.headers.authorization), { ...req.query });
    res.locals.merchantId = page.merchantId;
    const body: EventListResponse = { status: "success", data: page.events.map(eventObject), has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/events/:event_id", noStore, async (req, res) => {
    const { merchantId, event } = await gateway.webhooks.retrieveEvent(bearerToken(req.headers.authorization), String(req.params.event_id));
    res.locals.merchantId = merchantId;
    const body: EventResponse = { status: "success", data: eventObject(event), meta: {} };
    res.status(200).json(body);
  });

  return router;
}

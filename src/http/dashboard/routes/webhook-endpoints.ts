// The Webhooks page's endpoints and delivery log (issue 27) over the gateway's dashboard operations:
// the actor's merchant in the mode of `?mode=` (another merchant's or mode's endpoint is a 404), its
// role checked by the core (a viewer reads only: 403 role_forbidden). An endpoint and a delivery are
// shown as the REST API shows them (its presenters), the secret only in the answer of the change that
// made it. The rules (URL checks, filters, the limit, sudo mode, the audit log) are the core's.
import type { Request, Router } from "express";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { ALL_EVENTS } from "../../../core/webhooks/endpoints.ts";
import { webhookDeliveryObject, webhookEndpointObject } from "../../v1/webhook-endpoints/routes.ts";
import { accessOf, bodyOf, isLiveOf, sendData } from "../session.ts";

export function webhookEndpointRoutes(router: Router, gateway: PaymentGateway): void {
  // The form's checkboxes: the core's event types, and the filter that takes every one.
  router.get("/webhook-event-types", (_req, res) => {
    sendData(res, { event_types: gateway.webhooks.eventTypes(accessOf(gateway, res)), all: ALL_EVENTS });
  });

  router.get("/webhook-endpoints", async (req, res) => {
    const all = await gateway.webhooks.listEndpoints(accessOf(gateway, res, isLiveOf(req)));
    sendData(
      res,
      all.map((endpoint) => webhookEndpointObject(endpoint)),
    );
  });

  router.post("/webhook-endpoints", async (req, res) => {
    const created = await gateway.webhooks.createEndpoint(accessOf(gateway, res, isLiveOf(req)), bodyOf(req));
    sendData(res, webhookEndpointObject(created), 201);
  });

  // URL, filter, description; `disabled` true or false (with `redeliver_missed` when enabling).
  router.patch("/webhook-endpoints/:id", async (req, res) => {
    const updated = await gateway.webhooks.updateEndpoint(accessOf(gateway, res, isLiveOf(req)), String(req.params.id), bodyOf(req));
    sendData(res, { endpoint: webhookEndpointObject(updated.endpoint), redelivered: updated.redelivered });
  });

  router.delete("/webhook-endpoints/:id", async (req, res) => {
    const deleted = await gateway.webhooks.deleteEndpoint(accessOf(gateway, res, isLiveOf(req)), String(req.params.id));
    sendData(res, { id: deleted.id, deleted: true });
  });

  router.post("/webhook-endpoints/:id/rotate-secret", async (req, res) => {
    const rotated = await gateway.webhooks.rotateEndpointSecret(accessOf(gateway, res, isLiveOf(req)), String(req.params.id));
    sendData(res, webhookEndpointObject(rotated), 201);
  });

  // `status=failed` (or succeeded, pending), `limit`, `starting_after` (the last id of the previous page).
  router.get("/webhook-endpoints/:id/deliveries", async (req, res) => {
    const page = await gateway.webhooks.listDeliveries(accessOf(gateway, res, isLiveOf(req)), String(req.params.id), listQueryOf(req));
    sendData(res, { deliveries: page.deliveries.map(webhookDeliveryObject), has_more: page.hasMore });
  });

  router.post("/webhook-endpoints/:id/redeliver-failed", async (req, res) => {
    const queued = await gateway.webhooks.redeliverFailedDeliveries(accessOf(gateway, res, isLiveOf(req)), String(req.params.id), bodyOf(req));
    sendData(res, { queued }, 202);
  });

  router.post("/webhook-deliveries/:id/redeliver", async (req, res) => {
    const delivery = await gateway.webhooks.redeliverDelivery(accessOf(gateway, res, isLiveOf(req)), String(req.params.id));
    sendData(res, webhookDeliveryObject(delivery), 202);
  });
}

/** The query without `mode` (the dashboard's, not the list's): the list refuses parameters it does not know. */
function listQueryOf(req: Request): Record<string, unknown> {
  const { mode: _mode, ...query } = req.query;
  return query;
}

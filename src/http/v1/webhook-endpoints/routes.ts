// REST controllers of webhook endpoints and their delivery log (issue 27), with a secret key: its
// merchant's endpoints of its mode. Parse, call the core, shape the reply; the rules are the core's.
import { Router, type Request } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { DeliveryLogEntry, WebhookEndpointRow } from "../../../core/stores/webhook-endpoints.ts";
import { deliveryStatus } from "../../../core/webhooks/delivery-log.ts";
import type { WebhookEndpointView } from "../../../core/webhooks/endpoints.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { jsonBody } from "../../body.ts";

export function webhookEndpointRoutes(gateway: PaymentGateway): Router {
  const router = Router();
  const body = jsonBody(errors.webhookEndpointValidation);
  // The key's access; each use case checks what its role may do (changes audited as the key, from the client's address).
  const owner = async (req: Request, res: { locals: Record<string, unknown> }) => {
    const found = await gateway.access.key(bearerToken(req.headers.authorization), clientAddress(req));
    res.locals.merchantId = found.merchantId;
    return found;
  };
  const ok = (data: unknown) => ({ status: "success", data, meta: {} });

  router.post("/v1/webhook_endpoints", noStore, body, async (req, res) => {
    const endpoint = await gateway.webhooks.createEndpoint(await owner(req, res), req.body);
    res.status(201).json(ok(webhookEndpointObject(endpoint)));
  });

  router.get("/v1/webhook_endpoints", noStore, async (req, res) => {
    const all = await gateway.webhooks.listEndpoints(await owner(req, res));
    res.status(200).json({ status: "success", data: all.map((e) => webhookEndpointObject(e)), has_more: false, meta: {} });
  });

  router.get("/v1/webhook_endpoints/:endpoint_id", noStore, async (req, res) => {
    const endpoint = await gateway.webhooks.retrieveEndpoint(await owner(req, res), String(req.params.endpoint_id));
    res.status(200).json(ok(webhookEndpointObject(endpoint)));
  });

  router.post("/v1/webhook_endpoints/:endpoint_id", noStore, body, async (req, res) => {
    const updated = await gateway.webhooks.updateEndpoint(await owner(req, res), String(req.params.endpoint_id), req.body);
    res.status(200).json({ status: "success", data: webhookEndpointObject(updated.endpoint), meta: { redelivered: updated.redelivered } });
  });

  router.delete("/v1/webhook_endpoints/:endpoint_id", noStore, async (req, res) => {
    const deleted = await gateway.webhooks.deleteEndpoint(await owner(req, res), String(req.params.endpoint_id));
    res.status(200).json(ok({ id: deleted.id, object: "webhook_endpoint", deleted: true }));
  });

  router.post("/v1/webhook_endpoints/:endpoint_id/rotate_secret", noStore, body, async (req, res) => {
    const rotated = await gateway.webhooks.rotateEndpointSecret(await owner(req, res), String(req.params.endpoint_id));
    res.status(200).json(ok(webhookEndpointObject(rotated)));
  });

  router.get("/v1/webhook_endpoints/:endpoint_id/deliveries", noStore, async (req, res) => {
    const page = await gateway.webhooks.listDeliveries(await owner(req, res), String(req.params.endpoint_id), { ...req.query });
    res.status(200).json({ status: "success", data: page.deliveries.map(webhookDeliveryObject), has_more: page.hasMore, meta: {} });
  });

  router.post("/v1/webhook_endpoints/:endpoint_id/redeliver_failed", noStore, body, async (req, res) => {
    const queued = await gateway.webhooks.redeliverFailedDeliveries(await owner(req, res), String(req.params.endpoint_id), req.body);
    res.status(202).json(ok({ queued }));
  });

  router.post("/v1/webhook_deliveries/:delivery_id/redeliver", noStore, body, async (req, res) => {
    const delivery = await gateway.webhooks.redeliverDelivery(await owner(req, res), String(req.params.delivery_id));
    res.status(202).json(ok(webhookDeliveryObject(delivery)));
  });

  return router;
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** An endpoint as the API shows it; its secret only when just made or rotated. */
export function webhookEndpointObject(endpoint: WebhookEndpointRow | WebhookEndpointView) {
  return {
    id: endpoint.id,
    object: "webhook_endpoint" as const,
    mode: endpoint.isLive ? ("live" as const) : ("test" as const),
    url: endpoint.url,
    description: endpoint.description,
    enabled_events: endpoint.enabledEvents,
    status: endpoint.disabledAt === null ? ("enabled" as const) : ("disabled" as const),
    disabled_at: iso(endpoint.disabledAt),
    disabled_reason: endpoint.disabledReason,
    failing_since: iso(endpoint.failingSince),
    /** The mode's first endpoint: the merchant's webhook URL and secret (merchant settings change it too). */
    primary: endpoint.isPrimary,
    secret_rotated_at: iso(endpoint.secretRotatedAt),
    previous_secret_expires_at: iso(endpoint.previousSecretExpiresAt),
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
    ...("secret" in endpoint && endpoint.secret !== undefined ? { secret: endpoint.secret } : {}),
  };
}

export function webhookDeliveryObject(entry: DeliveryLogEntry) {
  return {
    id: entry.id,
    object: "webhook_delivery" as const,
    endpoint_id: entry.endpointId,
    event: { id: entry.eventId, type: entry.eventType },
    status: deliveryStatus(entry),
    attempts: entry.attemptCount,
    status_code: entry.lastStatusCode,
    latency_ms: entry.lastLatencyMs,
    last_attempt_at: iso(entry.lastAttemptAt),
    next_attempt_at: iso(entry.nextAttemptAt),
    delivered_at: iso(entry.deliveredAt),
    created_at: entry.createdAt.toISOString(),
  };
}

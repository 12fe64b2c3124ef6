// The webhooks context's façade: a merchant's webhook endpoints and their delivery log (issue 27), the
// Events API and its live stream. Endpoint use cases take the caller's MerchantAccess and state there
// what they need, once: `read` to look, `manage_webhooks` to change, and in the dashboard a recent
// password for a change that sends events somewhere new or hands out a signing secret.
import type { CoreDeps } from "../deps.ts";
import { listEvents, retrieveEvent, type EventPage } from "../events/list.ts";
import { type EventStream, type EventStreamRequest, type EventStreams, openEventStream } from "../events/stream.ts";
import type { MerchantAccess } from "./access.ts";
import type { PrivateTargets } from "../private-targets.ts";
import type { WebhookEvent } from "../records/rows.ts";
import type { DeliveryLogEntry, WebhookEndpointRow } from "../stores/webhook-endpoints.ts";
import type { LiveCredentials } from "../transactions/updates.ts";
import * as deliveryLog from "../webhooks/delivery-log.ts";
import * as endpoints from "../webhooks/endpoints.ts";

type EndpointChange = Parameters<typeof endpoints.needsRecentAuthentication>[0];

/** The access of an endpoint change: its permission, then a recent password where the change needs one. */
function changer(access: MerchantAccess, change: EndpointChange, body?: unknown): MerchantAccess {
  access.require("manage_webhooks");
  if (endpoints.needsRecentAuthentication(change, body)) access.requireRecentProof();
  return access;
}

function reader(access: MerchantAccess): MerchantAccess {
  access.require("read");
  return access;
}

export class Webhooks {
  constructor(
    private readonly deps: CoreDeps,
    private readonly eventStreams: EventStreams,
    private readonly liveCredentials: LiveCredentials,
  ) {}

  /** The private destinations webhook URLs may name, for an adapter that explains a refused URL. */
  get privateTargets(): PrivateTargets {
    return this.deps.privateWebhookTargets;
  }

  /** The event types an endpoint's filter may name (the form's choices), `*` aside. */
  eventTypes(access: MerchantAccess): readonly string[] {
    reader(access);
    return endpoints.knownEventTypes();
  }

  async listEndpoints(access: MerchantAccess): Promise<WebhookEndpointRow[]> {
    return endpoints.listEndpoints(this.deps, reader(access));
  }

  async retrieveEndpoint(access: MerchantAccess, id: string): Promise<WebhookEndpointRow> {
    return endpoints.retrieveEndpoint(this.deps, reader(access), id);
  }

  async createEndpoint(access: MerchantAccess, body: unknown): Promise<endpoints.WebhookEndpointView> {
    return endpoints.createEndpoint(this.deps, changer(access, "create", body), body);
  }

  async updateEndpoint(access: MerchantAccess, id: string, body: unknown): Promise<endpoints.UpdatedEndpoint> {
    return endpoints.updateEndpoint(this.deps, changer(access, "update", body), id, body);
  }

  async deleteEndpoint(access: MerchantAccess, id: string): Promise<WebhookEndpointRow> {
    return endpoints.deleteEndpoint(this.deps, changer(access, "delete"), id);
  }

  async rotateEndpointSecret(access: MerchantAccess, id: string): Promise<endpoints.WebhookEndpointView> {
    return endpoints.rotateEndpointSecret(this.deps, changer(access, "rotate_secret"), id);
  }

  /** `names`: the list's parameters in the adapter's words, for its messages (GraphQL's first, after). */
  async listDeliveries(
    access: MerchantAccess,
    endpointId: string,
    params: Record<string, unknown>,
    names?: Partial<Record<string, string>>,
  ): Promise<deliveryLog.DeliveryPage> {
    return deliveryLog.listDeliveries(this.deps, reader(access), endpointId, params, names);
  }

  async redeliverDelivery(access: MerchantAccess, id: string): Promise<DeliveryLogEntry> {
    access.require("manage_webhooks");
    return deliveryLog.redeliverDelivery(this.deps, access, id);
  }

  async redeliverFailedDeliveries(access: MerchantAccess, endpointId: string, body: unknown): Promise<number> {
    access.require("manage_webhooks");
    return deliveryLog.redeliverFailed(this.deps, access, endpointId, body);
  }

  // ── The Events API (a secret key's merchant and mode) ──

  /** The secret key's merchant's events of its mode, newest first; `params` are the list's query (events/list.ts). */
  listEvents(bearerToken: string | undefined, params: Record<string, unknown>): Promise<EventPage> {
    return listEvents(this.deps, bearerToken, params);
  }

  /** One event of the secret key's merchant and mode; not_found otherwise. */
  retrieveEvent(bearerToken: string | undefined, id: string): Promise<{ merchantId: number; event: WebhookEvent }> {
    return retrieveEvent(this.deps, bearerToken, id);
  }

  /**
   * The live event stream (GET /v1/events/stream): the secret key's merchant's events of its mode after
   * the cursor (Last-Event-ID or `starting_after`; none: from now), then each new one any instance writes.
   */
  openEventStream(bearerToken: string | undefined, request: EventStreamRequest): Promise<EventStream> {
    return openEventStream(this.deps, this.eventStreams, this.liveCredentials, bearerToken, request);
  }

  /** Live event streams open in this process now. */
  get openEventStreams(): number {
    return this.eventStreams.count;
  }
}

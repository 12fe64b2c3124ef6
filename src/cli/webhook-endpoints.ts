// `paygate webhook-endpoints …` (issue 27): a merchant's webhook endpoints of one mode and their
// delivery log, through the core as the REST API does; each command prints what it did.
import type { DeliveryLogEntry, WebhookEndpointRow } from "../core/stores/webhook-endpoints.ts";
import { deliveryStatus } from "../core/webhooks/delivery-log.ts";
import { type MerchantAccess, operatorAccess } from "../core/facades/access.ts";
import type { WebhookEndpointView } from "../core/webhooks/endpoints.ts";
import { type CliContext, type MerchantOption, modeOption, print, requiredMerchant, say, UsageError, withRuntime } from "./commands.ts";

export interface EndpointOptions extends MerchantOption {
  mode?: string;
  url?: string;
  events?: string;
  description?: string;
  disable?: boolean;
  enable?: boolean;
  redeliverMissed?: boolean;
  status?: string;
  limit?: string;
}

function ownerOf(options: EndpointOptions): MerchantAccess {
  return operatorAccess(requiredMerchant(options), modeOption(options.mode, "test") === "live");
}

const eventsOf = (events: string | undefined) =>
  events === undefined
    ? undefined
    : events
        .split(",")
        .map((e) => e.trim())
        .filter((e) => e !== "");

function shown(endpoint: WebhookEndpointRow | WebhookEndpointView) {
  return {
    id: endpoint.id,
    mode: endpoint.isLive ? "live" : "test",
    url: endpoint.url,
    description: endpoint.description,
    enabledEvents: endpoint.enabledEvents,
    status: endpoint.disabledAt === null ? "enabled" : "disabled",
    disabledAt: endpoint.disabledAt?.toISOString() ?? null,
    disabledReason: endpoint.disabledReason,
    primary: endpoint.isPrimary,
    createdAt: endpoint.createdAt.toISOString(),
    ...("secret" in endpoint && endpoint.secret !== undefined ? { secret: endpoint.secret } : {}),
  };
}

function line(endpoint: ReturnType<typeof shown>): string {
  const state = endpoint.status === "enabled" ? "enabled" : `DISABLED (${endpoint.disabledReason} since ${endpoint.disabledAt})`;
  const first = endpoint.primary ? " [the merchant's webhook URL]" : "";
  return `  ${endpoint.id}  ${endpoint.mode}  ${endpoint.url}  events: ${endpoint.enabledEvents.join(",")}  ${state}${first}`;
}

export async function webhookEndpointsCreate(ctx: CliContext, options: EndpointOptions): Promise<void> {
  const owner = ownerOf(options);
  if (options.url === undefined) throw new UsageError("--url URL is required.");
  const body = {
    url: options.url,
    enabled_events: eventsOf(options.events) ?? ["*"],
    ...(options.description === undefined ? {} : { description: options.description }),
  };
  const endpoint = shown(await withRuntime(ctx, (rt) => rt.gateway.webhooks.createEndpoint(owner, body)));
  if (options.json) return print(ctx, endpoint);
  say(ctx, `Created webhook endpoint ${endpoint.id} of merchant ${owner.merchantId} (${endpoint.mode} mode):\n${line(endpoint)}`);
  if (endpoint.secret) say(ctx, `\n  signing secret    ${endpoint.secret}\n\nIt is shown only now; store it safely.`);
}

export async function webhookEndpointsList(ctx: CliContext, options: EndpointOptions): Promise<void> {
  const owner = ownerOf(options);
  const endpoints = (await withRuntime(ctx, (rt) => rt.gateway.webhooks.listEndpoints(owner))).map(shown);
  if (options.json) return print(ctx, { endpoints });
  if (endpoints.length === 0) return say(ctx, `Merchant ${owner.merchantId} has no ${owner.isLive ? "live" : "test"}-mode webhook endpoints.`);
  for (const endpoint of endpoints) say(ctx, line(endpoint));
}

export async function webhookEndpointsUpdate(ctx: CliContext, id: string, options: EndpointOptions): Promise<void> {
  const owner = ownerOf(options);
  if (options.enable && options.disable) throw new UsageError("--enable and --disable exclude each other.");
  if (options.redeliverMissed && !options.enable) throw new UsageError("--redeliver-missed goes with --enable.");
  const body = {
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.events === undefined ? {} : { enabled_events: eventsOf(options.events) }),
    ...(options.description === undefined ? {} : { description: options.description === "" ? null : options.description }),
    ...(options.disable ? { disabled: true } : {}),
    ...(options.enable ? { disabled: false, redeliver_missed: options.redeliverMissed === true } : {}),
  };
  const updated = await withRuntime(ctx, (rt) => rt.gateway.webhooks.updateEndpoint(owner, id, body));
  const endpoint = shown(updated.endpoint);
  if (options.json) return print(ctx, { ...endpoint, redelivered: updated.redelivered });
  say(ctx, `Updated webhook endpoint ${endpoint.id}:\n${line(endpoint)}`);
  if (options.enable) say(ctx, options.redeliverMissed ? `Queued ${updated.redelivered} missed deliveries again.` : "What it missed is not sent.");
}

export async function webhookEndpointsDelete(ctx: CliContext, id: string, options: EndpointOptions): Promise<void> {
  const owner = ownerOf(options);
  const deleted = shown(await withRuntime(ctx, (rt) => rt.gateway.webhooks.deleteEndpoint(owner, id)));
  if (options.json) return print(ctx, { id: deleted.id, deleted: true });
  say(
    ctx,
    `Deleted webhook endpoint ${deleted.id} (${deleted.url})${deleted.primary ? "; the merchant's webhook URL of this mode is removed with it" : ""}.`,
  );
}

export async function webhookEndpointsRotateSecret(ctx: CliContext, id: string, options: EndpointOptions): Promise<void> {
  const owner = ownerOf(options);
  const rotated = await withRuntime(ctx, (rt) => rt.gateway.webhooks.rotateEndpointSecret(owner, id));
  const until = rotated.previousSecretExpiresAt?.toISOString() ?? null;
  if (options.json) return print(ctx, { id: rotated.id, secret: rotated.secret, previousSecretExpiresAt: until });
  say(
    ctx,
    `Rotated the signing secret of webhook endpoint ${rotated.id}.

  signing secret    ${rotated.secret}

It is shown only now; store it safely. Until ${until} every delivery is signed with both the old and the new secret.${
      rotated.isPrimary ? "\nThis is the merchant's webhook secret, which both modes' first endpoints share." : ""
    }`,
  );
}

export async function webhookEndpointsDeliveries(ctx: CliContext, id: string, options: EndpointOptions): Promise<void> {
  const owner = ownerOf(options);
  const params = {
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  };
  const page = await withRuntime(ctx, (rt) => rt.gateway.webhooks.listDeliveries(owner, id, params));
  const rows = page.deliveries.map(deliveryRow);
  if (options.json) return print(ctx, { deliveries: rows, hasMore: page.hasMore });
  if (rows.length === 0) return say(ctx, "No deliveries.");
  for (const d of rows) {
    const answer = d.statusCode === null ? "no answer" : `HTTP ${d.statusCode}`;
    const latency = d.latencyMs === null ? "" : ` in ${d.latencyMs} ms`;
    say(
      ctx,
      `  ${d.id}  ${d.eventType.padEnd(18)} ${d.status.padEnd(9)} ${d.attempts} attempt(s), ${d.attempts === 0 ? "not tried yet" : `${answer}${latency}`}  ${d.createdAt}`,
    );
  }
  if (page.hasMore) say(ctx, "(more: --limit, or the API's starting_after)");
}

function deliveryRow(entry: DeliveryLogEntry) {
  const status = deliveryStatus(entry);
  return {
    id: entry.id,
    eventId: entry.eventId,
    eventType: entry.eventType,
    status,
    attempts: entry.attemptCount,
    statusCode: entry.lastStatusCode,
    latencyMs: entry.lastLatencyMs,
    lastAttemptAt: entry.lastAttemptAt?.toISOString() ?? null,
    createdAt: entry.createdAt.toISOString(),
  };
}

// Webhook endpoints (issue 27): a merchant's receivers per mode, each with the events it wants, a
// description, enabled or disabled, and a signing secret of its own (shown once, rotated with the
// 24-hour overlap of webhook-secrets.ts). A mode's first endpoint is the merchant's webhook URL and
// that mode's secret: changing its URL or secret goes through the merchant (updateMerchant,
// rotateModeWebhookSecret), so `merchant update --webhook-url` and the dashboard keep one truth; the
// database mirrors them into its endpoint row (the webhook_endpoints migration).
import { z } from "zod";
import { auditEntry, webhookUrlTarget, type AuditAction, type ChangeAuthor } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { errors, type FieldError } from "../errors.ts";
import { EVENT_TYPES } from "../events/payment-events.ts";
import { privateTargetsHint } from "../private-targets.ts";
import { updateMerchant, type MerchantDeps } from "../merchants/merchants.ts";
import { checkWebhookUrl } from "../merchants/webhook-url.ts";
import { rotateModeWebhookSecret, WEBHOOK_SECRET_OVERLAP_MS } from "./secrets.ts";
import { newWebhookSecret, randomToken } from "../secrets.ts";
import type { AuditWrite } from "../stores/audit-log.ts";
import type { WebhookEndpointRow } from "../stores/webhook-endpoints.ts";

/** Every event type: an endpoint's filter `*`. */
export const ALL_EVENTS = "*";
export const WEBHOOK_ENDPOINTS_MAX_DEFAULT = 16;
export const DISABLE_AFTER_HOURS_DEFAULT = 72;
const DESCRIPTION_MAX = 500;

const ENDPOINT_ID = /^we_[0-9A-Za-z]{1,64}$/;
export const DELIVERY_ID = /^wd_(?:evt_)?[0-9A-Za-z]{1,64}$/;
export const newEndpointId = () => `we_${randomToken(24)}`;

/** Whose endpoints a call reaches: the secret key's merchant and mode, or a dashboard user's, and who acts (the audit log's author). */
export interface EndpointOwner {
  merchantId: number;
  isLive: boolean;
  /** Who acts, in the audit log: the key, the dashboard user, or the operator (the CLI). */
  by: ChangeAuthor;
}

export type EndpointDeps = MerchantDeps & Pick<CoreDeps, "clock"> & { webhookEndpointsMax?: number };

/**
 * The endpoint changes that need a recent password in the dashboard (sudo mode, as setting the webhook
 * URL or rotating the secret): those that send events somewhere new or hand out a signing secret,
 * and deleting (removing the merchant's URL, for the first endpoint). Filters, descriptions,
 * disabling and enabling do not.
 */
export function needsRecentAuthentication(change: "create" | "update" | "delete" | "rotate_secret", body?: unknown): boolean {
  if (change !== "update") return true;
  return typeof body === "object" && body !== null && "url" in body;
}

/** An endpoint change's audit entry: the mode, the URL's origin only (audit-log.ts), the id, what changed. */
function endpointAudit(
  deps: Pick<CoreDeps, "clock">,
  by: ChangeAuthor,
  endpoint: Pick<WebhookEndpointRow, "id" | "merchantId" | "isLive" | "url">,
  action: AuditAction,
  detail: string,
): AuditWrite {
  const target = `${webhookUrlTarget(endpoint.isLive ? "live" : "test", endpoint.url)} ${endpoint.id}${detail === "" ? "" : `: ${detail}`}`;
  return auditEntry(by, endpoint.merchantId, deps.clock.now(), action, target);
}

const eventsDetail = (events: string[]) => `events ${events.join(", ")}`;

/** The event types a filter may name: the core's list (payment and refund events), or `*`. */
export function knownEventTypes(): readonly string[] {
  return EVENT_TYPES;
}

const eventList = z
  .array(z.string({ error: "must be a list of event type names" }), { error: `must be a list of event types, or ["${ALL_EVENTS}"]` })
  .min(1, `must name at least one event type, or "${ALL_EVENTS}"`)
  .max(64, "must name at most 64 event types")
  .superRefine((names, ctx) => {
    const known = knownEventTypes();
    const unknown = names.filter((name) => name !== ALL_EVENTS && !known.includes(name));
    if (unknown.length > 0) {
      ctx.addIssue({ code: "custom", message: `names no event type: ${unknown.join(", ")}; use ${known.join(", ")} or ${ALL_EVENTS}` });
    }
  })
  .transform((names) => (names.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(names)]));

const description = z.string({ error: "must be a string" }).max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`);

const CreateBody = z.strictObject({
  url: z.string({ error: "is required: the https URL that receives the events" }),
  enabled_events: eventList,
  description: description.optional(),
});

const UpdateBody = z.strictObject({
  url: z.string({ error: "must be a string" }).optional(),
  enabled_events: eventList.optional(),
  description: description.nullable().optional(),
  disabled: z.boolean({ error: "must be true or false" }).optional(),
  redeliver_missed: z.boolean({ error: "must be true or false" }).optional(),
});

export const RedeliverFailedBody = z.strictObject({
  since: z.iso.datetime({ offset: true, error: "must be an ISO 8601 time, e.g. 2026-11-26T12:00:00Z" }),
});

/** The body checked against `schema`; a 400 naming each field otherwise (webhook endpoints' one error). */
export function parsed<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const fieldErrors: FieldError[] = result.error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join(".") : "body",
    message: issue.code === "unrecognized_keys" ? `has unknown field(s): ${issue.keys.join(", ")}` : issue.message,
  }));
  throw errors.webhookEndpointValidation(fieldErrors);
}

function checkedUrl(deps: EndpointDeps, url: string, isLive: boolean): string {
  const mode = isLive ? "live" : "test";
  const targets = deps.privateWebhookTargets;
  const check = checkWebhookUrl(url, mode, { allowPrivate: targets[mode], allowlist: targets.allowlist });
  if (!check.ok) {
    const hint = check.privateHost ? `; ${privateTargetsHint(mode)}` : "";
    throw errors.webhookEndpointValidation([{ field: "url", message: `'${url}' is refused: ${check.reason}${hint}` }]);
  }
  return check.url;
}

/** An endpoint as shown, and with its secret once (when it was created or rotated). */
export interface WebhookEndpointView extends WebhookEndpointRow {
  secret?: string;
}

/**
 * An endpoint as its callers show it: `previousSecretExpiresAt` is until when the secret before the
 * last rotation still signs deliveries, null once past (or never rotated), by the core's clock.
 */
function shown<T extends WebhookEndpointRow>(deps: Pick<CoreDeps, "clock">, row: T): T {
  const expiresAt = row.previousSecretExpiresAt;
  return { ...row, previousSecretExpiresAt: expiresAt !== null && expiresAt > deps.clock.now() ? expiresAt : null };
}

export async function createEndpoint(deps: EndpointDeps, owner: EndpointOwner, body: unknown): Promise<WebhookEndpointView> {
  const { by } = owner;
  const input = parsed(CreateBody, body);
  const url = checkedUrl(deps, input.url, owner.isLive);
  const max = deps.webhookEndpointsMax ?? WEBHOOK_ENDPOINTS_MAX_DEFAULT;
  const existing = await deps.stores.webhookEndpoints.list(owner.merchantId, owner.isLive);
  if (existing.length >= max) throw errors.webhookEndpointLimit(max, owner.isLive ? "live" : "test");
  // The mode's first endpoint is the merchant's webhook URL (and secret): one made when there is none becomes it.
  if (existing.length === 0) {
    const first = await createFirstEndpoint(deps, owner, url, input, by);
    if (first) return first;
    // Another request made the first one meanwhile: this one is an endpoint of its own.
  }
  const secret = newWebhookSecret();
  const id = newEndpointId();
  const row = await deps.stores.webhookEndpoints.create(
    {
      id,
      merchantId: owner.merchantId,
      isLive: owner.isLive,
      url,
      description: input.description ?? null,
      enabledEvents: input.enabled_events,
      secretEnc: deps.secrets.seal(secret),
    },
    max,
    endpointAudit(
      deps,
      by,
      { id, merchantId: owner.merchantId, isLive: owner.isLive, url },
      "webhook_endpoint.create",
      eventsDetail(input.enabled_events),
    ),
  );
  if (!row) throw errors.webhookEndpointLimit(max, owner.isLive ? "live" : "test");
  return shown(deps, { ...row, secret });
}

/**
 * The mode's first endpoint, unless another request made it first (null). Its secret signs the
 * mode's deliveries: live mode's is the merchant's; test mode gets a new one here, so that a test
 * credential never sees a secret that signs live deliveries (issue 41).
 */
async function createFirstEndpoint(
  deps: EndpointDeps,
  owner: EndpointOwner,
  url: string,
  input: { enabled_events: string[]; description?: string | undefined },
  by: ChangeAuthor,
): Promise<WebhookEndpointView | null> {
  const mode = owner.isLive ? "live" : "test";
  const made = await deps.stores.webhookEndpoints.createFirst(
    { merchantId: owner.merchantId, isLive: owner.isLive, url, enabledEvents: input.enabled_events, description: input.description ?? null },
    (row) => [
      auditEntry(by, owner.merchantId, deps.clock.now(), "webhook_url.set", webhookUrlTarget(mode, url)),
      endpointAudit(deps, by, row, "webhook_endpoint.create", `${eventsDetail(input.enabled_events)} (the merchant's webhook URL)`),
    ],
  );
  if (!made) return null;
  if (owner.isLive) return shown(deps, { ...made, secret: deps.secrets.open(made.secretEnc) });
  const rotated = await rotateModeWebhookSecret(deps, owner.merchantId, "test", false, by);
  return { ...(await retrieveEndpoint(deps, owner, made.id)), secret: rotated.webhookSecret };
}

export async function listEndpoints(deps: Pick<CoreDeps, "stores" | "clock">, owner: EndpointOwner): Promise<WebhookEndpointRow[]> {
  return (await deps.stores.webhookEndpoints.list(owner.merchantId, owner.isLive)).map((row) => shown(deps, row));
}

export async function retrieveEndpoint(deps: Pick<CoreDeps, "stores" | "clock">, owner: EndpointOwner, id: string): Promise<WebhookEndpointRow> {
  const row = ENDPOINT_ID.test(id) ? await deps.stores.webhookEndpoints.find(id, owner.merchantId, owner.isLive) : null;
  if (!row) throw errors.webhookEndpointNotFound(id);
  return shown(deps, row);
}

/** What an update did beyond the fields: how many missed deliveries were queued again on re-enabling. */
export interface UpdatedEndpoint {
  endpoint: WebhookEndpointRow;
  redelivered: number;
}

/**
 * Changes the URL, filter, description, or enables/disables it. Re-enabling with `redeliver_missed`
 * queues again what failed or was not sent while it was failing or disabled.
 */
export async function updateEndpoint(deps: EndpointDeps, owner: EndpointOwner, id: string, body: unknown): Promise<UpdatedEndpoint> {
  const { by } = owner;
  const input = parsed(UpdateBody, body);
  const current = await retrieveEndpoint(deps, owner, id);
  if (input.redeliver_missed !== undefined && input.disabled !== false) {
    throw errors.webhookEndpointValidation([{ field: "redeliver_missed", message: "only goes with disabled: false (re-enabling the endpoint)" }]);
  }
  const url = input.url === undefined ? undefined : checkedUrl(deps, input.url, owner.isLive);
  const now = deps.clock.now();
  if (url !== undefined && current.isPrimary) {
    await updateMerchant(deps, owner.merchantId, owner.isLive ? { liveWebhookUrl: url } : { testWebhookUrl: url }, by);
  }
  const reenabling = input.disabled === false && current.disabledAt !== null;
  const disabling = input.disabled === true && current.disabledAt === null;
  const missedSince = current.failingSince ?? current.disabledAt;
  const changed = [
    // The new URL's origin only, as every audited URL (its path or query may carry a token).
    ...(url === undefined ? [] : [`url ${new URL(url).origin}`]),
    ...(input.enabled_events === undefined ? [] : [eventsDetail(input.enabled_events)]),
    ...(input.description === undefined ? [] : ["description"]),
  ];
  const action: AuditAction = changed.length > 0 ? "webhook_endpoint.update" : disabling ? "webhook_endpoint.disable" : "webhook_endpoint.enable";
  const stateDetail = disabling
    ? "disabled"
    : reenabling
      ? input.redeliver_missed === true
        ? "enabled, redelivering what it missed"
        : "enabled"
      : "";
  const detail = [...changed, ...(stateDetail === "" ? [] : [stateDetail])].join("; ");
  const audit = detail === "" ? undefined : endpointAudit(deps, by, current, action, detail);
  const endpoint = await deps.stores.webhookEndpoints.update(
    current.id,
    {
      ...(url === undefined || current.isPrimary ? {} : { url }),
      ...(input.enabled_events === undefined ? {} : { enabledEvents: input.enabled_events }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.disabled === undefined
        ? {}
        : input.disabled
          ? current.disabledAt === null
            ? { disabled: { at: now, reason: "manual" } }
            : {}
          : { disabled: null }),
    },
    audit,
  );
  let redelivered = 0;
  if (reenabling && input.redeliver_missed === true && missedSince) {
    redelivered = await deps.stores.webhookEndpoints.requeueSince(endpoint, missedSince, now, true);
  } else if (reenabling) {
    // Without redelivery nothing from before is sent: what waited while it was failing or disabled is dropped.
    await deps.stores.webhookEndpoints.skipPending(endpoint.id);
  }
  return { endpoint: shown(deps, endpoint), redelivered };
}

export async function deleteEndpoint(deps: EndpointDeps, owner: EndpointOwner, id: string): Promise<WebhookEndpointRow> {
  const { by } = owner;
  const current = await retrieveEndpoint(deps, owner, id);
  // The first endpoint is the merchant's URL of the mode: removing that removes it (the database follows).
  if (current.isPrimary) await updateMerchant(deps, owner.merchantId, owner.isLive ? { liveWebhookUrl: null } : { testWebhookUrl: null }, by);
  else await deps.stores.webhookEndpoints.delete(current.id, endpointAudit(deps, by, current, "webhook_endpoint.delete", ""));
  return current;
}

/**
 * A new signing secret, shown once; the previous one keeps signing for 24 hours. The first endpoint's
 * secret is its mode's (webhook-secrets.ts): the other mode's is left as it was.
 */
export async function rotateEndpointSecret(deps: EndpointDeps, owner: EndpointOwner, id: string): Promise<WebhookEndpointView> {
  const { by } = owner;
  const current = await retrieveEndpoint(deps, owner, id);
  if (current.isPrimary) {
    const rotated = await rotateModeWebhookSecret(deps, owner.merchantId, owner.isLive ? "live" : "test", true, by);
    return { ...(await retrieveEndpoint(deps, owner, id)), secret: rotated.webhookSecret };
  }
  const secret = newWebhookSecret();
  const rotatedAt = deps.clock.now();
  const row = await deps.stores.webhookEndpoints.update(
    current.id,
    {
      secret: {
        secretEnc: deps.secrets.seal(secret),
        rotatedAt,
        previousSecretEnc: current.secretEnc,
        previousSecretExpiresAt: new Date(rotatedAt.getTime() + WEBHOOK_SECRET_OVERLAP_MS),
      },
    },
    endpointAudit(deps, by, current, "webhook_endpoint.rotate_secret", "signing secret (the previous one signs for 24 hours)"),
  );
  return shown(deps, { ...row, secret });
}

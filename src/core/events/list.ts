// The Events API (GET /v1/events, /v1/events/:id; issue 13): a merchant's webhook events of one
// mode, kept 30 days, so a receiver that was down can catch up (Stripe's Events API). Parsing,
// the cursor and the retention are ruled here; the store only runs the queries.
import { z } from "zod";
import type { WebhookEvent } from "../records/rows.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single, startingAfter } from "../lists.ts";
import type { WebhookEventStore } from "../stores/webhook-events.ts";
import { isTransactionId } from "../transactions/record.ts";
import { EVENT_TYPES } from "./payment-events.ts";

/** How long events are kept: the expiry job deletes older ones. */
export const EVENT_RETENTION_MS = 30 * 24 * 3_600_000;

/** `evt_` and 24 base62 characters (newEventId); anything else names no event and is not looked up. */
const EVENT_ID = /^evt_[0-9A-Za-z]{1,64}$/;

export function isEventId(id: string): boolean {
  return EVENT_ID.test(id);
}

export const EventListParams = z.object({
  limit: limitParam.optional(),
  starting_after: single.regex(EVENT_ID, "must be the id (evt_…) of an event of the previous page").optional(),
  type: single.pipe(z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(", ")}` })).optional(),
  transaction: single.refine(isTransactionId, "must be a transaction id (a UUID)").optional(),
});

export interface EventPage {
  merchantId: number;
  events: WebhookEvent[];
  hasMore: boolean;
}

/** The secret key's merchant's events of its mode, newest first (commit order), `limit` after `starting_after`. */
export async function listEvents(
  { stores, credentials }: Pick<CoreDeps, "stores" | "credentials">,
  bearerToken: string | undefined,
  params: Record<string, unknown>,
): Promise<EventPage> {
  const caller = await credentials.authenticateSecret(bearerToken);
  const query = parseListQuery(EventListParams, params);
  const cursor = await startingAfter(query.starting_after, (id) => stores.webhookEvents.findFor(id, caller.merchant.id, caller.isLive));
  const afterSeq = cursor?.seq ?? null;
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await stores.webhookEvents.page({
    merchantId: caller.merchant.id,
    isLive: caller.isLive,
    type: query.type ?? null,
    transactionId: query.transaction?.toLowerCase() ?? null,
    afterSeq,
    limit: limit + 1,
  });
  const page = pageOf(rows, limit);
  return { merchantId: caller.merchant.id, events: page.items, hasMore: page.hasMore };
}

/** One event of the secret key's merchant and mode; another's, or an unknown id, is not found. */
export async function retrieveEvent(
  { stores, credentials }: Pick<CoreDeps, "stores" | "credentials">,
  bearerToken: string | undefined,
  id: string,
): Promise<{ merchantId: number; event: WebhookEvent }> {
  const caller = await credentials.authenticateSecret(bearerToken);
  const event = EVENT_ID.test(id) ? await stores.webhookEvents.findFor(id, caller.merchant.id, caller.isLive) : null;
  if (!event) throw errors.eventNotFound(id);
  return { merchantId: caller.merchant.id, event };
}

/** Deletes events older than their 30 days, with their attempts (the expiry job's tick); returns how many. */
export function pruneEvents(store: WebhookEventStore, now: Date): Promise<number> {
  return store.pruneBefore(new Date(now.getTime() - EVENT_RETENTION_MS));
}

// An endpoint's delivery log (issue 27): each delivery's status, a page of them, and sending one or
// every failed one again. Beside endpoints.ts, whose owner and endpoint checks it uses.
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single } from "../lists.ts";
import type { DeliveryLogEntry } from "../stores/webhook-endpoints.ts";
import { DELIVERY_ID, parsed, RedeliverFailedBody, retrieveEndpoint, type EndpointOwner } from "./endpoints.ts";

export type DeliveryStatus = "succeeded" | "failed" | "pending" | "skipped";

/** succeeded: delivered; failed: given up, or retrying after a failed attempt; pending: not tried yet; skipped: not sent. */
export function deliveryStatus(entry: Pick<DeliveryLogEntry, "state" | "attemptCount">): DeliveryStatus {
  if (entry.state === "DELIVERED") return "succeeded";
  if (entry.state === "FAILED") return "failed";
  if (entry.state === "SKIPPED") return "skipped";
  return entry.attemptCount > 0 ? "failed" : "pending";
}

const DeliveryListParams = z.object({
  limit: limitParam.optional(),
  starting_after: single.regex(DELIVERY_ID, "must be the id (wd_…) of a delivery of the previous page").optional(),
  status: single.pipe(z.enum(["failed", "succeeded", "pending"], { error: "must be one of failed, succeeded, pending" })).optional(),
});

export interface DeliveryPage {
  deliveries: DeliveryLogEntry[];
  hasMore: boolean;
}

/**
 * An endpoint's deliveries, newest first, `limit` after `starting_after`, of one status if asked. `names`: the
 * parameters as the adapter calls them, for the messages (GraphQL's `first`, `after`).
 */
export async function listDeliveries(
  deps: Pick<CoreDeps, "stores" | "clock">,
  owner: EndpointOwner,
  endpointId: string,
  params: Record<string, unknown>,
  names: Partial<Record<string, string>> = {},
): Promise<DeliveryPage> {
  const endpoint = await retrieveEndpoint(deps, owner, endpointId);
  const query = parseListQuery(DeliveryListParams, params, names);
  let afterSeq: bigint | null = null;
  if (query.starting_after !== undefined) {
    const cursor = await deps.stores.webhookEndpoints.findDelivery(query.starting_after, owner.merchantId, owner.isLive);
    if (!cursor || cursor.endpointId !== endpoint.id) throw errors.unknownCursor(names.starting_after ?? "starting_after", query.starting_after);
    afterSeq = cursor.seq;
  }
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await deps.stores.webhookEndpoints.page({ endpoint, status: query.status ?? null, afterSeq, limit: limit + 1 });
  const page = pageOf(rows, limit);
  return { deliveries: page.items, hasMore: page.hasMore };
}

/** One delivery of the owner's, queued again now with a fresh schedule; the dispatcher sends it on its next pass. */
export async function redeliverDelivery(deps: Pick<CoreDeps, "stores" | "clock">, owner: EndpointOwner, id: string): Promise<DeliveryLogEntry> {
  const delivery = DELIVERY_ID.test(id) ? await deps.stores.webhookEndpoints.findDelivery(id, owner.merchantId, owner.isLive) : null;
  if (!delivery) throw errors.webhookDeliveryNotFound(id);
  await deps.stores.webhookEndpoints.requeueDelivery(delivery.id, deps.clock.now());
  return (await deps.stores.webhookEndpoints.findDelivery(id, owner.merchantId, owner.isLive)) ?? delivery;
}

/** Every failed delivery of the endpoint whose event was written since `since`, queued again now; how many. */
export async function redeliverFailed(
  deps: Pick<CoreDeps, "stores" | "clock">,
  owner: EndpointOwner,
  endpointId: string,
  body: unknown,
): Promise<number> {
  const endpoint = await retrieveEndpoint(deps, owner, endpointId);
  const input = parsed(RedeliverFailedBody, body);
  return deps.stores.webhookEndpoints.requeueSince(endpoint, new Date(input.since), deps.clock.now(), false);
}

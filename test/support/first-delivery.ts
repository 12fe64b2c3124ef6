// The delivery of an event to its mode's first webhook endpoint (the merchant's URL), as the tests read
// and write it: its state, attempt count, next attempt, delivery time, claim and attempts. It is the
// delivery row `wd_<event id>` (issue 45: one delivery model for every endpoint); an event that no first
// endpoint took has none.
import type { DeliveryState } from "../../src/core/records/rows.ts";
import type { Database, Prisma, WebhookDeliveryAttempt } from "../../src/db/types.ts";

/** Which events, by what the event itself says. */
export type EventWhere = Omit<Prisma.WebhookEventWhereInput, "attempts" | "deliveries" | "AND" | "OR" | "NOT">;

/** Which first deliveries: those of the events `event` selects, in a state when `state` is given. */
export interface FirstDeliveryWhere {
  event?: EventWhere;
  state?: DeliveryState | { not: DeliveryState } | { in: DeliveryState[] };
}

export interface FirstDelivery {
  eventId: string;
  state: DeliveryState;
  attemptCount: number;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  /** Set while a dispatcher holds the delivery. */
  claimToken: string | null;
  /** Its attempts, oldest first. */
  attempts: WebhookDeliveryAttempt[];
}

/** What a test may set on a first delivery (a redelivery's PENDING, a due time, a count). */
export type FirstDeliveryChange = Partial<Pick<FirstDelivery, "state" | "attemptCount" | "nextAttemptAt" | "deliveredAt" | "claimToken">>;

const withAttempts = { attempts: { orderBy: { id: "asc" } } } as const;

/** Every first delivery's id starts so: `wd_` and the event id (`evt_…`). */
const FIRST = { startsWith: "wd_evt_" } as const;

type DeliveryWithAttempts = Prisma.WebhookDeliveryGetPayload<{ include: typeof withAttempts }>;

function firstDeliveryIn(delivery: DeliveryWithAttempts): FirstDelivery {
  const { eventId, state, attemptCount, nextAttemptAt, deliveredAt, claimToken, attempts } = delivery;
  return { eventId, state, attemptCount, nextAttemptAt, deliveredAt, claimToken, attempts };
}

function whereOf({ event, state }: FirstDeliveryWhere): Prisma.WebhookDeliveryWhereInput {
  return { id: FIRST, ...(event === undefined ? {} : { event }), ...(state === undefined ? {} : { state }) };
}

/** The first endpoint's delivery of the event `eventId`; throws when there is none. */
export async function firstDelivery(db: Database, eventId: string): Promise<FirstDelivery> {
  return firstDeliveryIn(await db.webhookDelivery.findUniqueOrThrow({ where: { id: `wd_${eventId}` }, include: withAttempts }));
}

/** The first endpoint's delivery of the event `where` selects (a transaction's one event, say); throws when there is none. */
export async function firstDeliveryOf(db: Database, where: EventWhere): Promise<FirstDelivery> {
  return firstDeliveryIn(await db.webhookDelivery.findFirstOrThrow({ where: whereOf({ event: where }), include: withAttempts }));
}

/** How many first deliveries `where` selects. */
export function countFirstDeliveries(db: Database, where: FirstDeliveryWhere): Promise<number> {
  return db.webhookDelivery.count({ where: whereOf(where) });
}

/** The first deliveries of the events `where` selects (every event when not given), counted by state. */
export async function firstDeliveryStates(db: Database, where: EventWhere = {}): Promise<Array<{ state: DeliveryState; _count: number }>> {
  const groups = await db.webhookDelivery.groupBy({ by: ["state"], where: whereOf({ event: where }), _count: true, orderBy: { state: "asc" } });
  return groups.map(({ state, _count }) => ({ state, _count }));
}

/** Sets fields of the first endpoint's delivery of the event `eventId`, as the dispatcher would not; throws when there is none. */
export async function setFirstDelivery(db: Database, eventId: string, change: FirstDeliveryChange): Promise<void> {
  await db.webhookDelivery.update({ where: { id: `wd_${eventId}` }, data: change });
}

/**
 * Makes the first deliveries `where` selects due at `at` (by default long ago: due now, and the
 * oldest due). Throws when it selects none, so that a test cannot go on believing it moved one.
 */
export async function makeFirstDeliveriesDue(db: Database, where: FirstDeliveryWhere, at = new Date(0)): Promise<number> {
  const { count } = await db.webhookDelivery.updateMany({ where: whereOf(where), data: { nextAttemptAt: at } });
  if (count === 0) throw new Error(`no first delivery to make due: ${JSON.stringify(where)}`);
  return count;
}

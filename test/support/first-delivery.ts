// The delivery of an event to its mode's first webhook endpoint (the merchant's URL), as the tests read
// and write it: its state, attempt count, next attempt, delivery time, claim and attempts. Today that
// state is the event row's own (webhook_events, with the attempts whose delivery_id is NULL); issue 45
// moves it to the delivery row `wd_<event id>` (docs/plans/one-webhook-model.md), and then only the
// bodies here change, not the assertions that go through them.
import type { DeliveryState } from "../../src/core/records/rows.ts";
import type { Database, Prisma, WebhookDeliveryAttempt } from "../../src/db/types.ts";

/** Which events, by what the event itself says: the queue's columns are the delivery's, so they are not in it. */
export type EventWhere = Omit<
  Prisma.WebhookEventWhereInput,
  "state" | "attemptCount" | "nextAttemptAt" | "claimToken" | "deliveredAt" | "attempts" | "deliveries" | "AND" | "OR" | "NOT"
>;

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

const withAttempts = { attempts: { where: { deliveryId: null }, orderBy: { id: "asc" } } } as const;

type EventWithAttempts = Prisma.WebhookEventGetPayload<{ include: typeof withAttempts }>;

function firstDeliveryIn(event: EventWithAttempts): FirstDelivery {
  const { id, state, attemptCount, nextAttemptAt, deliveredAt, claimToken, attempts } = event;
  return { eventId: id, state, attemptCount, nextAttemptAt, deliveredAt, claimToken, attempts };
}

function whereOf({ event, state }: FirstDeliveryWhere): Prisma.WebhookEventWhereInput {
  return state === undefined ? { ...event } : { ...event, state };
}

/** The first endpoint's delivery of the event `eventId`; throws when there is no such event. */
export async function firstDelivery(db: Database, eventId: string): Promise<FirstDelivery> {
  return firstDeliveryIn(await db.webhookEvent.findUniqueOrThrow({ where: { id: eventId }, include: withAttempts }));
}

/** The first endpoint's delivery of the event `where` selects (a transaction's one event, say); throws when none does. */
export async function firstDeliveryOf(db: Database, where: EventWhere): Promise<FirstDelivery> {
  return firstDeliveryIn(await db.webhookEvent.findFirstOrThrow({ where, include: withAttempts }));
}

/** How many first deliveries `where` selects. */
export function countFirstDeliveries(db: Database, where: FirstDeliveryWhere): Promise<number> {
  return db.webhookEvent.count({ where: whereOf(where) });
}

/** The first deliveries of the events `where` selects (every event when not given), counted by state. */
export async function firstDeliveryStates(db: Database, where: EventWhere = {}): Promise<Array<{ state: DeliveryState; _count: number }>> {
  const groups = await db.webhookEvent.groupBy({ by: ["state"], where, _count: true, orderBy: { state: "asc" } });
  return groups.map(({ state, _count }) => ({ state, _count }));
}

/** Sets fields of the first endpoint's delivery of the event `eventId`, as the dispatcher would not; throws when there is no such event. */
export async function setFirstDelivery(db: Database, eventId: string, change: FirstDeliveryChange): Promise<void> {
  await db.webhookEvent.update({ where: { id: eventId }, data: change });
}

/**
 * Makes the first deliveries `where` selects due at `at` (by default long ago: due now, and the
 * oldest due). Throws when it selects none, so that a test cannot go on believing it moved one.
 */
export async function makeFirstDeliveriesDue(db: Database, where: FirstDeliveryWhere, at = new Date(0)): Promise<number> {
  const { count } = await db.webhookEvent.updateMany({ where: whereOf(where), data: { nextAttemptAt: at } });
  if (count === 0) throw new Error(`no first delivery to make due: ${JSON.stringify(where)}`);
  return count;
}

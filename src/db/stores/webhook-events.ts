// The outbox (webhook_events) on Prisma: what the Events API, an operator and the dashboard list. Each
// event shows its delivery to its mode's first endpoint (the merchant's URL), the delivery `wd_<event id>`
// of the endpoints' store (webhook-endpoints.ts); an event no first endpoint took has none and shows skipped.
import type { FirstDelivery, WebhookEvent } from "../../core/records/rows.ts";
import type { EventFilter, EventWithAttempts, WebhookEventStore } from "../../core/stores/webhook-events.ts";
import { firstDeliveryId } from "../../core/stores/webhook-endpoints.ts";
import type { Database, Prisma } from "../types.ts";

/** Every first delivery's id starts so (an event id is `evt_…`); another endpoint's is `wd_` and hex. */
const FIRST_DELIVERIES = firstDeliveryId("evt_");

/** The first delivery, read beside its event: at most one row, through the (event_id, endpoint_id) index. */
const firstDeliveryOfEvent = {
  deliveries: {
    where: { id: { startsWith: FIRST_DELIVERIES } },
    select: { state: true, attemptCount: true, nextAttemptAt: true, deliveredAt: true },
  },
} as const satisfies Prisma.WebhookEventInclude;

type EventRowWithFirst = Prisma.WebhookEventGetPayload<{ include: typeof firstDeliveryOfEvent }>;

/** The event with its first delivery's state, or skipped without an attempt when it has none. */
function withFirstDelivery<R extends EventRowWithFirst>({ deliveries, ...event }: R): Omit<R, "deliveries"> & FirstDelivery {
  const first = deliveries[0];
  return first ? { ...event, ...first } : { ...event, state: "SKIPPED", attemptCount: 0, nextAttemptAt: event.createdAt, deliveredAt: null };
}

export function webhookEventStore(db: Database): WebhookEventStore {
  return {
    list: (filter) => listEvents(db, filter),
    async findFor(id, merchantId, isLive) {
      const row = await db.webhookEvent.findFirst({ where: { id, merchantId, isLive }, include: firstDeliveryOfEvent });
      return row ? withFirstDelivery(row) : null;
    },
    page: async (q): Promise<WebhookEvent[]> => {
      const rows = await db.webhookEvent.findMany({
        where: {
          merchantId: q.merchantId,
          isLive: q.isLive,
          ...(q.type === null ? {} : { type: q.type }),
          ...(q.transactionId === null ? {} : { transactionId: q.transactionId }),
          ...(q.afterSeq === null ? {} : { seq: { lt: q.afterSeq } }),
        },
        orderBy: { seq: "desc" },
        take: q.limit,
        include: firstDeliveryOfEvent,
      });
      return rows.map(withFirstDelivery);
    },
    since: async (q): Promise<WebhookEvent[]> => {
      const rows = await db.webhookEvent.findMany({
        where: { merchantId: q.merchantId, isLive: q.isLive, seq: { gt: q.afterSeq } },
        orderBy: { seq: "asc" },
        take: q.limit,
        include: firstDeliveryOfEvent,
      });
      return rows.map(withFirstDelivery);
    },
    async pruneBefore(before) {
      // Their deliveries and attempts go with them (foreign keys ON DELETE CASCADE).
      const { count } = await db.webhookEvent.deleteMany({ where: { createdAt: { lt: before } } });
      return count;
    },
  };
}

/** The events whose first delivery is in `state`: skipped also when no first endpoint took the event. */
function inState(state: NonNullable<EventFilter["state"]>): Prisma.WebhookEventWhereInput {
  const first = { id: { startsWith: FIRST_DELIVERIES } };
  if (state !== "SKIPPED") return { deliveries: { some: { ...first, state } } };
  return { OR: [{ deliveries: { none: first } }, { deliveries: { some: { ...first, state } } }] };
}

/** Newest first, each with its attempts (newest first). */
async function listEvents(db: Database, filter: EventFilter = {}): Promise<EventWithAttempts[]> {
  const rows = await db.webhookEvent.findMany({
    where: {
      ...(filter.merchantId === undefined ? {} : { merchantId: filter.merchantId }),
      ...(filter.state === undefined ? {} : inState(filter.state)),
      ...(filter.transactionId === undefined ? {} : { transactionId: filter.transactionId }),
    },
    // Newest first through the created_at index (seq has none); seq orders the events of one instant.
    orderBy: [{ createdAt: "desc" }, { seq: "desc" }],
    take: filter.limit ?? 50,
    include: { ...firstDeliveryOfEvent, attempts: { orderBy: { id: "desc" } }, transaction: { select: { reference: true } } },
  });
  return rows.map(withFirstDelivery);
}

// The Events API's response shapes, and the bodies a webhook receiver gets, as zod schemas: the
// presenters return their types and the OpenAPI document (openapi.ts beside this file) is generated
// from them.
import { z } from "zod";
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from "../../../core/events/catalog.ts";
import {
  CONSOLIDATION_EVENT_TYPES,
  EVENT_TYPES,
  FLUSH_EVENT_TYPES,
  UNMATCHED_RECEIPT_EVENT_TYPES,
  INVOICE_EVENT_TYPES,
  PAYMENT_EVENT_TYPES,
  REFUND_EVENT_TYPES,
  SWEEP_EVENT_TYPES,
} from "../../../core/events/payment-events.ts";
import { Invoice } from "../invoices/schemas.ts";
import { nullable } from "../openapi-shared.ts";
import { Refund } from "../refunds/schemas.ts";
import { Consolidation, Flush } from "../settlements/schemas.ts";
import { UnmatchedReceipt } from "../settlements/own-addresses-schemas.ts";
import { Sweep } from "../settlements/sweeps-schemas.ts";
import { PaymentState, Receipt, TransactionStatus } from "../transactions/schemas.ts";

/** An event of the Events API (Stripe's Event object, in this API's words). */
export const Event = z
  .object({
    id: z.string().meta({ description: "`evt_…`: the `webhook-id` header its deliveries carried.", example: "evt_3WbHk8Zq1RmT0xYvN5cLpA7d" }),
    type: z.enum(EVENT_TYPES).meta({
      description:
        "A payment event (spec 6), a refund event (refund.created, refund.succeeded, refund.canceled; docs/refunds.md), a consolidation's (settlement.consolidation.seen, .confirmed, .canceled) a forwarder flush's (settlement.flush.confirmed, .failed, .reorganized; docs/settlement.md), a recorded sweep's (settlement.sweep.recorded) or an invoice's (invoice.finalized, .voided, .paid; docs/invoices.md).",
    }),
    created_at: z.string().meta({ format: "date-time", description: "When the state change (and so the event) was written." }),
    transaction: nullable(z.string()).meta({
      description: "The id of the transaction whose state changed; null for an event about no transaction (settlement.*: see `subject`).",
    }),
    subject: nullable(z.string()).meta({
      description:
        "Not a transaction's event: the id of what it is about (`co_…` for settlement.consolidation.*, `fl_…` for settlement.flush.*, `sw_…` for settlement.sweep.recorded, `inv_…` for invoice.*); null for payment and refund events.",
    }),
    is_live: z.boolean(),
    data: z.record(z.string(), z.unknown()).meta({
      description:
        "The webhook's JSON body exactly as delivered (and signed) on every attempt (docs/webhooks.md): `{event, data: {transaction}}`, the transaction with spec 6's fields and `receipts` (each a `Receipt`, as the transaction shows them) as they were when its state changed.",
    }),
    delivery: z.object({
      state: z.enum(["pending", "delivered", "failed", "skipped"]).meta({
        description: "pending: waiting for an attempt; delivered; failed: every retry failed; skipped: no webhook URL for its mode.",
      }),
      attempts: z.number().int().meta({ description: "Delivery attempts so far." }),
      next_attempt_at: z.string().meta({ format: "date-time" }).nullable().meta({ description: "When it is tried next; null unless pending." }),
      delivered_at: z.string().meta({ format: "date-time" }).nullable(),
    }),
  })
  .meta({ id: "Event" });

const isoTime = z.string().meta({ format: "date-time" });

/** The transaction in a payment event's body (spec 6), as it was when its state changed. */
const WebhookTransaction = z
  .object({
    reference: z.string(),
    merchant_name: z.string(),
    payment_currency: nullable(z.number().int().meta({ description: "The coin's id (spec 4's currency_id); null before initiate." })),
    payment_currency_name: nullable(z.string()),
    payment_currency_slug: nullable(z.string()),
    payment_network: nullable(z.string().meta({ description: "Not in spec 6: the network it is paid on." })),
    payment_network_name: nullable(z.string()),
    status: TransactionStatus,
    customer_email: z.string(),
    customer_name: z.string().meta({ description: 'The customer\'s name, "" when none was given.' }),
    payment_amount: nullable(z.number()),
    amount_paid: nullable(z.number()),
    description: nullable(z.string()),
    is_live: z.boolean(),
    created_at: isoTime,
    meta: z.record(z.string(), z.unknown()),
    receipts: z.array(Receipt),
    reversed_at: nullable(isoTime),
    state: nullable(PaymentState).meta({
      description:
        "Not in spec 6: the payment state as `meta.payment.state` shows it when the event was written (`reversed` in payment.reversed); null before initiate.",
    }),
  })
  .meta({ id: "WebhookTransaction" });

/** The body of a payment event (payment.initiated, .pending, .received, .abandoned, .reversed). */
export const PaymentWebhook = z
  .object({ event: z.enum(PAYMENT_EVENT_TYPES), data: z.object({ transaction: WebhookTransaction }) })
  .meta({ id: "PaymentWebhook" });

/** The body of a refund event (refund.created, .succeeded, .canceled; docs/refunds.md): the refund and its transaction. */
export const RefundWebhook = z
  .object({
    event: z.enum(REFUND_EVENT_TYPES),
    data: z.object({
      refund: Refund,
      transaction: z.object({
        id: z.string(),
        reference: z.string(),
        merchant_name: z.string(),
        status: TransactionStatus,
        payment_currency: nullable(z.number().int()),
        payment_currency_slug: nullable(z.string()),
        payment_network: nullable(z.string()),
        customer_email: z.string(),
        payment_amount: nullable(z.number()),
        amount_paid: nullable(z.number()),
        is_live: z.boolean(),
        created_at: isoTime,
      }),
    }),
  })
  .meta({ id: "RefundWebhook" });

/** The body of a consolidation's event (settlement.consolidation.seen, .confirmed, .canceled; docs/settlement.md): the consolidation as REST shows it then. */
export const SettlementWebhook = z
  .object({ event: z.enum(CONSOLIDATION_EVENT_TYPES), data: z.object({ consolidation: Consolidation }) })
  .meta({ id: "SettlementWebhook" });

/** The body of a forwarder flush's event (settlement.flush.confirmed, .failed, .reorganized; docs/settlement.md): the flush as REST shows it then. */
export const FlushWebhook = z.object({ event: z.enum(FLUSH_EVENT_TYPES), data: z.object({ flush: Flush }) }).meta({ id: "FlushWebhook" });

/** The body of settlement.unmatched_receipt.created (docs/settlement.md, Own addresses): the receipt as REST shows it then. */
export const UnmatchedReceiptWebhook = z
  .object({ event: z.enum(UNMATCHED_RECEIPT_EVENT_TYPES), data: z.object({ unmatched_receipt: UnmatchedReceipt }) })
  .meta({ id: "UnmatchedReceiptWebhook" });

/** The body of settlement.sweep.recorded (docs/settlement.md, Recording sweeps): the sweep as REST shows it. */
export const SweepWebhook = z.object({ event: z.enum(SWEEP_EVENT_TYPES), data: z.object({ sweep: Sweep }) }).meta({ id: "SweepWebhook" });

/** The body of an invoice's event (invoice.finalized, .voided, .paid; docs/invoices.md): the invoice as GET /v1/invoices/{id} shows it then. */
export const InvoiceWebhook = z.object({ event: z.enum(INVOICE_EVENT_TYPES), data: z.object({ invoice: Invoice }) }).meta({ id: "InvoiceWebhook" });

/** The body of `webhook.test` (the dashboard's and `paygate webhooks send-test`'s): no transaction, nothing to do. */
export const TestWebhook = z
  .object({
    event: z.literal(TEST_EVENT_TYPE),
    data: z.object({ merchant_name: z.string(), mode: z.enum(["test", "live"]), sent_at: isoTime, message: z.string() }),
  })
  .meta({ id: "TestWebhook" });

/**
 * What a webhook receiver gets: one of the bodies above, told apart by `event`; together they cover every
 * type of src/core/events/catalog.ts (checked below), so the SDK's union is that list.
 */
export const WebhookPayload = z
  .discriminatedUnion("event", [
    PaymentWebhook,
    RefundWebhook,
    SettlementWebhook,
    FlushWebhook,
    UnmatchedReceiptWebhook,
    SweepWebhook,
    InvoiceWebhook,
    TestWebhook,
  ])
  .meta({ id: "WebhookPayload" });
type CoveredTypes = z.infer<typeof WebhookPayload>["event"];
const _everyEventType: readonly CoveredTypes[] = WEBHOOK_EVENT_TYPES satisfies readonly CoveredTypes[];
void _everyEventType;

/** One message of GET /v1/events/stream: the Event, and its body as the exact bytes that are signed. */
export const EventStreamMessage = Event.extend({
  body: z.string().meta({
    description:
      "The webhook's JSON body as the exact text delivered and signed (`data` parsed): a forwarder (`paygate listen`) signs and sends these bytes.",
  }),
}).meta({ id: "EventStreamMessage" });

export const EventResponse = z.object({ status: z.literal("success"), data: Event, meta: z.object({}) }).meta({ id: "EventResponse" });

export const EventListResponse = z
  .object({
    status: z.literal("success"),
    data: z.array(Event).meta({ description: "Newest first (commit order)." }),
    has_more: z.boolean().meta({ description: "Whether another page follows: ask for it with `starting_after` = the last item's `id`." }),
    meta: z.object({}),
  })
  .meta({ id: "EventListResponse" });

export type Event = z.infer<typeof Event>;
export type EventStreamMessage = z.infer<typeof EventStreamMessage>;
export type EventResponse = z.infer<typeof EventResponse>;
export type EventListResponse = z.infer<typeof EventListResponse>;

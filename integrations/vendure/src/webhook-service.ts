// What a paygate webhook does to Vendure (docs/webhooks.md): verified first with each paygate payment
// method's `whsec_…` secret (Standard Webhooks; none matches: 401, nothing read or changed), then
// applied under the payment's row lock, once per delivery id (`webhook-id`), and always against the
// transaction as paygate shows it now (GET), never the body's word alone:
// - payment.received: the payment is settled (the order becomes PaymentSettled); an overpayment's excess
//   is kept in the payment's metadata. A payment already cancelled (the order paid another way) is left
//   alone, with a note: paygate's late-payment handling and refunds deal with that money.
// - payment.abandoned: the payment is cancelled; the order too, but only when nothing else pays it,
//   it is not settled, nothing arrived at paygate, and the method says so (cancelOrderOnExpiry).
//   Underpaid: the order stays, with a note saying what arrived.
// - payment.reversed: a note. refund.succeeded: the Vendure refund is settled; refund.canceled: Failed, with a note.
import { Inject, Injectable } from "@nestjs/common";
import { HistoryEntryType } from "@vendure/common/lib/generated-types";
import {
  HistoryService,
  type ID,
  Logger,
  type Order,
  OrderService,
  Payment,
  PaymentMethod,
  Refund,
  type RequestContext,
  RequestContextService,
  TransactionalConnection,
} from "@vendure/core";
import { Webhook } from "standardwebhooks";
import { PaygateError } from "./client.js";
import { clientFor, describeReceived, PAYGATE_HANDLER_CODE, type PaygateArgs, snapshot, transactionIdOf } from "./handler.js";

const LOG_CONTEXT = "PaygatePlugin";
/** How many delivery ids a payment remembers (a transaction has a handful of events). */
const REMEMBERED_DELIVERIES = 50;

export interface WebhookAnswer {
  status: number;
  body: { ok: boolean; message: string };
}

interface PaygateEvent {
  event: string;
  data: { transaction?: { reference?: string }; refund?: { id?: string; tx_hash?: string | null; state?: string } };
}

function argsOf(method: PaymentMethod): PaygateArgs {
  const value = (name: string) => method.handler.args.find((arg: { name: string; value: string }) => arg.name === name)?.value ?? "";
  return {
    apiUrl: value("apiUrl"),
    publicKey: value("publicKey"),
    secretKey: value("secretKey"),
    webhookSecret: value("webhookSecret"),
    returnUrl: value("returnUrl"),
    expiresInSeconds: Number(value("expiresInSeconds")) || 0,
    cancelOrderOnExpiry: value("cancelOrderOnExpiry") !== "false",
  };
}

const answer = (status: number, ok: boolean, message: string): WebhookAnswer => ({ status, body: { ok, message } });

@Injectable()
export class PaygateWebhookService {
  constructor(
    @Inject(TransactionalConnection) private readonly connection: TransactionalConnection,
    @Inject(OrderService) private readonly orders: OrderService,
    @Inject(HistoryService) private readonly history: HistoryService,
    @Inject(RequestContextService) private readonly contexts: RequestContextService,
  ) {}

  async handle(raw: Buffer | undefined, headers: Record<string, string | string[] | undefined>): Promise<WebhookAnswer> {
    const verified = await this.verify(raw ?? Buffer.alloc(0), headers);
    if (!verified) return answer(401, false, "bad signature");
    const { method, event, deliveryId } = verified;
    const reference = event.data.transaction?.reference;
    if (!event.event.startsWith("payment.") && !event.event.startsWith("refund.")) return answer(200, true, `${event.event} ignored`);
    if (!reference) return answer(200, true, "no transaction in the event");
    const found = await this.connection.rawConnection
      .getRepository(Payment)
      .findOne({ where: { transactionId: reference, method: method.code }, relations: ["order", "order.channels"] });
    // Another shop of the same paygate merchant, or an order deleted since: nothing of ours to change.
    if (!found) return answer(200, true, `no payment for ${reference}`);
    const channel = found.order.channels.find((c) => method.channels.some((m) => m.id === c.id)) ?? found.order.channels[0];
    if (!channel) return answer(200, true, `the order of ${reference} is in no channel`);
    const ctx = await this.contexts.create({ apiType: "admin", channelOrToken: channel.token });
    try {
      return await this.connection.withTransaction(ctx, (tx) => this.apply(tx, found.id, method, event, deliveryId));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      Logger.error(`webhook ${deliveryId} (${event.event} ${reference}): ${message}`, LOG_CONTEXT);
      // paygate retries a failed delivery: a paygate that did not answer, a lock timeout, a restart.
      return answer(error instanceof PaygateError ? 502 : 500, false, message);
    }
  }

  /** The paygate payment method whose secret signed the delivery, and the event; null when none did. */
  private async verify(raw: Buffer, headers: Record<string, string | string[] | undefined>) {
    const flat: Record<string, string> = {};
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const value = headers[name];
      if (typeof value === "string") flat[name] = value;
    }
    if (Object.keys(flat).length < 3) return null;
    const methods = await this.connection.rawConnection.getRepository(PaymentMethod).find({ relations: ["channels"] });
    for (const method of methods.filter((m) => m.handler.code === PAYGATE_HANDLER_CODE)) {
      const secret = argsOf(method).webhookSecret;
      if (!secret) continue;
      try {
        const event = new Webhook(secret).verify(raw.toString("utf8"), flat) as PaygateEvent;
        return { method, event, deliveryId: flat["webhook-id"] };
      } catch {
        // Not this method's secret (or not signed by paygate at all): try the next one.
      }
    }
    return null;
  }

  private async apply(ctx: RequestContext, paymentId: ID, method: PaymentMethod, event: PaygateEvent, deliveryId: string): Promise<WebhookAnswer> {
    const payments = this.connection.getRepository(ctx, Payment);
    // One delivery at a time per payment: a repeated delivery racing its first attempt waits, then sees it done.
    const locking = ["postgres", "mysql", "mariadb"].includes(this.connection.rawConnection.options.type);
    const payment = await payments.findOneOrFail({ where: { id: paymentId }, ...(locking ? { lock: { mode: "pessimistic_write" as const } } : {}) });
    const seen = (payment.metadata?.paygateDeliveries as string[] | undefined) ?? [];
    if (seen.includes(deliveryId)) return answer(200, true, `delivery ${deliveryId} already applied`);
    const order = await this.orders.findOne(ctx, (await payments.findOneOrFail({ where: { id: paymentId }, relations: ["order"] })).order.id);
    if (!order) return answer(200, true, "the order is gone");
    const result = await this.act(ctx, order, payment, argsOf(method), event);
    const latest = await payments.findOneOrFail({ where: { id: paymentId } });
    latest.metadata = { ...latest.metadata, paygateDeliveries: [...seen, deliveryId].slice(-REMEMBERED_DELIVERIES) };
    await payments.save(latest, { reload: false });
    return answer(200, true, result);
  }

  private async act(ctx: RequestContext, order: Order, payment: Payment, args: PaygateArgs, event: PaygateEvent): Promise<string> {
    const id = transactionIdOf(payment);
    if (!id) return "the payment has no paygate transaction";
    switch (event.event) {
      case "payment.received": {
        if (payment.state === "Settled") return "already settled";
        if (payment.state !== "Authorized") {
          await this.note(
            ctx,
            order,
            `paygate transaction ${payment.transactionId} was paid, but this payment is ${payment.state}: the order is left as it is. Refund the money from paygate, or take it for the order by hand.`,
          );
          return `payment is ${payment.state}: left alone`;
        }
        const settled = await this.orders.settlePayment(ctx, payment.id);
        if ("errorCode" in settled) return `not settled: ${settled.message}`;
        return "settled";
      }
      case "payment.abandoned":
        return this.abandoned(ctx, order, payment, args, id);
      case "payment.reversed":
        await this.note(
          ctx,
          order,
          `paygate transaction ${payment.transactionId}: the payment left the chain after it was counted (payment.reversed). Hold the order's fulfilment.`,
        );
        return "reversal noted";
      case "refund.succeeded":
        return this.refundSucceeded(ctx, event);
      case "refund.canceled":
        return this.refundCanceled(ctx, order, event);
      default:
        return `${event.event} needs nothing`;
    }
  }

  private async abandoned(ctx: RequestContext, order: Order, payment: Payment, args: PaygateArgs, id: string): Promise<string> {
    if (payment.state !== "Authorized") return `payment is ${payment.state}: left alone`;
    const tx = await clientFor(args).get(id);
    if (tx.status !== "ABANDONED") return `paygate shows ${tx.status}: nothing to do`;
    const paygate = snapshot(tx);
    const cancelled = await this.orders.cancelPayment(ctx, payment.id);
    if ("errorCode" in cancelled) return `payment not cancelled: ${cancelled.message}`;
    const nothingArrived = describeReceived(paygate) === "nothing arrived";
    // Read from the database, not from what the order happened to load: an order paid another way must never be cancelled.
    const payments = await this.orders.getOrderPayments(ctx, order.id);
    const others = payments.filter((p) => p.id !== payment.id && (p.state === "Authorized" || p.state === "Settled"));
    const cancellable = order.state === "PaymentAuthorized" || order.state === "ArrangingPayment";
    if (!nothingArrived) {
      await this.note(
        ctx,
        order,
        `paygate checkout ${tx.reference} closed ${paygate.state ?? ""}: ${describeReceived(paygate)}. The order was not cancelled: refund that money from paygate, or ask for the rest.`,
      );
      return `payment cancelled (${paygate.state}); order kept: ${describeReceived(paygate)}`;
    }
    if (others.length > 0) {
      await this.note(ctx, order, `paygate checkout ${tx.reference} expired unpaid. The order was not cancelled: another payment is on it.`);
      return `payment cancelled; order kept (${order.state}, paid another way)`;
    }
    if (!args.cancelOrderOnExpiry || !cancellable) {
      return `payment cancelled; order kept (${order.state})`;
    }
    const result = await this.orders.cancelOrder(ctx, {
      orderId: order.id,
      reason: `paygate checkout ${tx.reference} expired unpaid`,
      cancelShipping: true,
    });
    return "errorCode" in result ? `payment cancelled; order not cancelled: ${result.message}` : "payment and order cancelled";
  }

  private async refundSucceeded(ctx: RequestContext, event: PaygateEvent): Promise<string> {
    const refundId = event.data.refund?.id;
    if (!refundId) return "no refund in the event";
    const refunds = this.connection.getRepository(ctx, Refund);
    const refund = await refunds.findOne({ where: { transactionId: refundId } });
    if (!refund) return `no Vendure refund for ${refundId}`;
    if (refund.state !== "Pending") return `refund is ${refund.state}`;
    refund.metadata = { ...refund.metadata, txHash: event.data.refund?.tx_hash ?? null };
    await refunds.save(refund, { reload: false });
    await this.orders.settleRefund(ctx, { id: refund.id, transactionId: refundId });
    return "refund settled";
  }

  private async refundCanceled(ctx: RequestContext, order: Order, event: PaygateEvent): Promise<string> {
    const refundId = event.data.refund?.id;
    if (!refundId) return "no refund in the event";
    const refund = await this.connection.getRepository(ctx, Refund).findOne({ where: { transactionId: refundId } });
    if (!refund) return `no Vendure refund for ${refundId}`;
    if (refund.state !== "Pending") return `refund is ${refund.state}`;
    await this.orders.transitionRefundToState(ctx, refund.id, "Failed");
    await this.note(
      ctx,
      order,
      `paygate refund ${refundId} was canceled in paygate: the Vendure refund is Failed, and its amount can be refunded again.`,
    );
    return "refund failed";
  }

  private async note(ctx: RequestContext, order: Order, note: string): Promise<void> {
    await this.history.createHistoryEntryForOrder({ ctx, orderId: order.id, type: HistoryEntryType.ORDER_NOTE, data: { note } }, false);
  }
}

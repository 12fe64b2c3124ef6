// The Vendure payment method handler: addPaymentToOrder makes a paygate transaction and hands the
// storefront its hosted checkout (payment metadata `public.checkoutUrl`); the payment is `Authorized`
// while that checkout is open. settlePayment settles only what paygate shows paid (SUCCESSFUL), so the
// webhook and the Admin API's "settle" button agree; createRefund makes a paygate refund, whose claim
// link goes to the customer as a public order note.
import { HistoryEntryType } from "@vendure/common/lib/generated-types";
import { HistoryService, type Injector, LanguageCode, Logger, type Order, type Payment, PaymentMethodHandler } from "@vendure/core";
import { PaygateClient, PaygateError, type PaygateTransaction } from "./client.js";
import { decimalMinus, jsonNumberToDecimal, minorToDecimal, PAYGATE_FIAT } from "./money.js";

export const PAYGATE_HANDLER_CODE = "paygate";
const LOG_CONTEXT = "PaygatePlugin";

const en = (value: string) => [{ languageCode: LanguageCode.en, value }];

export const paygateHandlerArgs = {
  apiUrl: { type: "string", required: true, label: en("paygate URL"), description: en("e.g. https://pay.example.com") },
  publicKey: { type: "string", required: true, label: en("Public key (pub_…)") },
  secretKey: { type: "string", required: true, label: en("Secret key (sec_…)"), ui: { component: "password-form-input" } },
  webhookSecret: {
    type: "string",
    required: true,
    label: en("Webhook secret (whsec_…)"),
    description: en("The secret of the paygate webhook endpoint that points at <shop>/paygate/webhook"),
    ui: { component: "password-form-input" },
  },
  returnUrl: {
    type: "string",
    required: false,
    label: en("Return URL"),
    description: en("Where paygate's checkout sends the customer back; {code} is replaced by the order code"),
  },
  expiresInSeconds: { type: "int", required: false, label: en("Checkout window (seconds)"), description: en("Empty: paygate's default") },
  cancelOrderOnExpiry: {
    type: "boolean",
    defaultValue: true,
    label: en("Cancel an unpaid order when its checkout expires"),
    description: en("Never an order paid another way, settled, or to which any money arrived"),
  },
} as const;

/** The method's arguments as the handler receives them (Vendure's ConfigArgValues of paygateHandlerArgs). */
export interface PaygateArgs {
  apiUrl: string;
  publicKey: string;
  secretKey: string;
  webhookSecret: string;
  returnUrl: string;
  expiresInSeconds: number;
  cancelOrderOnExpiry: boolean;
}

export function clientFor(args: Pick<PaygateArgs, "apiUrl" | "publicKey" | "secretKey">): PaygateClient {
  return new PaygateClient({ apiUrl: args.apiUrl, publicKey: args.publicKey, secretKey: args.secretKey });
}

/** What the plugin keeps of a paygate transaction in the payment's metadata (`paygate`). */
export interface PaygateSnapshot {
  transactionId: string;
  reference: string;
  status: string;
  /** meta.payment.state: awaiting_payment, underpaid, paid, overpaid, expired, paid_late, reversed; null before a coin is picked. */
  state: string | null;
  coin: string | null;
  paymentAmount: string | null;
  amountPaid: string | null;
  /** Overpaid: what arrived beyond the payment amount, in the coin (refund it from paygate with amount_kind "overpaid"). */
  excess: string | null;
  checkedAt: string;
}

/** paygate's numeric crypto ids (docs/rest-api.md: 3 USDT, 4 BTC, 5 BNB, 6 ETH, 7 LTC, 8 USDC). */
const PAYGATE_COINS: Readonly<Record<number, string>> = { 3: "USDT", 4: "BTC", 5: "BNB", 6: "ETH", 7: "LTC", 8: "USDC" };

export function snapshot(tx: PaygateTransaction): PaygateSnapshot {
  const paymentAmount = tx.payment_amount === null ? null : jsonNumberToDecimal(tx.payment_amount);
  const amountPaid = tx.meta?.payment?.amount_confirmed ?? (tx.amount_paid === null ? null : jsonNumberToDecimal(tx.amount_paid));
  const state = tx.meta?.payment?.state ?? null;
  const excess = state === "overpaid" && paymentAmount && amountPaid ? decimalMinus(amountPaid, paymentAmount) : null;
  return {
    transactionId: tx.id,
    reference: tx.reference,
    status: tx.status,
    state,
    coin: tx.payment_currency === null ? null : (PAYGATE_COINS[tx.payment_currency] ?? String(tx.payment_currency)),
    paymentAmount,
    amountPaid,
    excess,
    checkedAt: new Date().toISOString(),
  };
}

/** "0.0005 of 0.001 LTC arrived" or "nothing arrived". */
export function describeReceived(s: PaygateSnapshot): string {
  if (!s.amountPaid || /^0(\.0*)?$/.test(s.amountPaid)) return "nothing arrived";
  return `${s.amountPaid} of ${s.paymentAmount ?? "?"} ${s.coin ?? ""} arrived`.trim();
}

export function transactionIdOf(payment: Payment): string | null {
  const id = (payment.metadata as { paygateTransactionId?: unknown } | undefined)?.paygateTransactionId;
  return typeof id === "string" ? id : null;
}

let historyService: HistoryService | undefined;

async function publicNote(ctx: Parameters<HistoryService["createHistoryEntryForOrder"]>[0]["ctx"], order: Order, note: string) {
  await historyService?.createHistoryEntryForOrder({ ctx, orderId: order.id, type: HistoryEntryType.ORDER_NOTE, data: { note } }, true);
}

export const paygatePaymentHandler = new PaymentMethodHandler({
  code: PAYGATE_HANDLER_CODE,
  description: en("paygate: crypto payments on the hosted checkout"),
  args: paygateHandlerArgs,
  init(injector: Injector) {
    historyService = injector.get(HistoryService);
  },

  async createPayment(ctx, order, amount, args) {
    const places = PAYGATE_FIAT[order.currencyCode];
    if (places === undefined) {
      return { amount, state: "Declined", errorMessage: `paygate prices orders in USD or NGN, not ${order.currencyCode}` };
    }
    const email = order.customer?.emailAddress;
    if (!email) return { amount, state: "Declined", errorMessage: "paygate needs the customer's e-mail address" };
    const name = [order.customer?.firstName, order.customer?.lastName].filter(Boolean).join(" ");
    try {
      const tx = await clientFor(args).initialize(
        {
          customer: { email, ...(name ? { name } : {}) },
          currency: order.currencyCode,
          amount: minorToDecimal(amount, places),
          description: `Order ${order.code}`,
          meta: { vendure_order_code: order.code, vendure_order_id: String(order.id), vendure_channel: ctx.channel.token },
          ...(args.returnUrl ? { return_url: args.returnUrl.replaceAll("{code}", encodeURIComponent(order.code)) } : {}),
          ...(args.expiresInSeconds ? { expires_in: args.expiresInSeconds } : {}),
        },
        // A retried addPaymentToOrder gets the same transaction back; a later attempt of the order a new one.
        `vendure-${ctx.channel.token}-${order.code}-${order.payments?.length ?? 0}-${amount}`,
      );
      return {
        amount,
        state: "Authorized",
        transactionId: tx.reference,
        metadata: {
          paygateTransactionId: tx.id,
          paygate: snapshot(tx),
          public: { checkoutUrl: tx.checkout_url ?? null, paygateReference: tx.reference },
        },
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      Logger.error(`createPayment for order ${order.code}: ${message}`, LOG_CONTEXT);
      return { amount, state: "Error", errorMessage: message };
    }
  },

  async settlePayment(_ctx, _order, payment, args) {
    const id = transactionIdOf(payment);
    if (!id) return { success: false, state: "Error", errorMessage: "the payment has no paygate transaction" };
    const tx = await clientFor(args).get(id);
    const paygate = snapshot(tx);
    if (tx.status === "SUCCESSFUL") return { success: true, metadata: { paygate } };
    // Not paid (yet): the payment stays Authorized and says where paygate's transaction is.
    return {
      success: false,
      state: "Authorized",
      errorMessage: `paygate transaction ${tx.reference} is ${tx.status} (${paygate.state ?? "no coin picked"}): ${describeReceived(paygate)}`,
      metadata: { paygate },
    };
  },

  async cancelPayment(_ctx, _order, payment, args) {
    const id = transactionIdOf(payment);
    if (!id) return { success: true };
    const tx = await clientFor(args).get(id);
    const paygate = snapshot(tx);
    if (tx.status === "SUCCESSFUL" && payment.state === "Authorized") {
      return {
        success: false,
        state: "Authorized",
        errorMessage: `paygate transaction ${tx.reference} is paid: settle the payment (or refund it)`,
        metadata: { paygate },
      };
    }
    // paygate has nothing to cancel: an open checkout simply expires; what arrives late stays with paygate's late-payment rules.
    return { success: true, metadata: { paygate } };
  },

  async createRefund(ctx, _input, amount, order, payment, args) {
    const id = transactionIdOf(payment);
    if (!id) return { state: "Failed", metadata: { error: "the payment has no paygate transaction" } };
    const places = PAYGATE_FIAT[order.currencyCode] ?? 2;
    try {
      const refund = await clientFor(args).refund(
        id,
        { amount_kind: "custom", amount: minorToDecimal(amount, places), amount_currency: order.currencyCode },
        `vendure-refund-${payment.id}-${amount}-${Date.now()}`,
      );
      if (refund.refund_url) {
        await publicNote(ctx, order, `Your refund of ${refund.amount} ${refund.currency}: tell us where to send it at ${refund.refund_url}`);
      }
      return {
        state: "Pending",
        transactionId: refund.id,
        metadata: { paygateRefundId: refund.id, amount: refund.amount, currency: refund.currency, claimUrl: refund.refund_url },
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      Logger.error(`createRefund for order ${order.code}: ${message}`, LOG_CONTEXT);
      return { state: "Failed", metadata: { error: message, status: error instanceof PaygateError ? error.status : null } };
    }
  },
});

// The paygate payment provider: a Medusa payment session is a paygate transaction, and the customer
// pays on paygate's hosted checkout (the session's `checkout_url`).
import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from "@medusajs/framework/types";
import { AbstractPaymentProvider, MathBN, MedusaError, PaymentSessionStatus } from "@medusajs/framework/utils";
import { PaygateClient, type PaygateTransaction } from "./client";
import { actionOf, verifyEvent } from "./webhook";

export interface PaygateOptions {
  /** paygate's base URL, e.g. https://pay.example.com */
  url: string;
  /** The merchant's public key (`pub_test_…` / `pub_live_…`). */
  publicKey: string;
  /** The merchant's secret key (`sec_test_…` / `sec_live_…`). */
  secretKey: string;
  /** The merchant's webhook secret (`whsec_…`). */
  webhookSecret: string;
  /** Where paygate's checkout sends the customer back, unless the session's data gives `return_url`. */
  returnUrl?: string;
  /** The checkout's "back to the shop" link, unless the session's data gives `cancel_url`. */
  cancelUrl?: string;
}

const CURRENCIES = new Set(["USD", "NGN"]);

/** An amount in the currency's major unit as paygate takes it: a decimal string with 2 places. */
export function fiatAmount(amount: InitiatePaymentInput["amount"]): string {
  return MathBN.convert(amount).toFixed(2);
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** The session status of a paygate transaction. */
export function statusOf(transaction: PaygateTransaction): PaymentSessionStatus {
  const state = transaction.meta?.payment?.state ?? null;
  if (transaction.status === "SUCCESSFUL") return transaction.reversed_at ? PaymentSessionStatus.ERROR : PaymentSessionStatus.CAPTURED;
  if (transaction.status === "ABANDONED") return PaymentSessionStatus.CANCELED;
  if (state === "underpaid") return PaymentSessionStatus.REQUIRES_MORE;
  return PaymentSessionStatus.PENDING;
}

/** What the session keeps of the transaction: its state, and for an overpayment the excess (in the coin). */
function snapshot(transaction: PaygateTransaction): Record<string, unknown> {
  const state = transaction.meta?.payment?.state ?? null;
  const paid = transaction.amount_paid === null ? null : String(transaction.amount_paid);
  const due = transaction.payment_amount === null ? null : String(transaction.payment_amount);
  return {
    paygate_status: transaction.status,
    paygate_state: state,
    paygate_amount_paid: paid,
    paygate_payment_amount: due,
    paygate_excess: state === "overpaid" && paid !== null && due !== null ? MathBN.sub(paid, due).toFixed() : null,
  };
}

class PaygateProviderService extends AbstractPaymentProvider<PaygateOptions> {
  static identifier = "paygate";

  private readonly client: PaygateClient;
  private readonly options: PaygateOptions;

  static validateOptions(options: Record<string, unknown>): void {
    for (const name of ["url", "publicKey", "secretKey", "webhookSecret"]) {
      if (!text(options[name])) throw new MedusaError(MedusaError.Types.INVALID_DATA, `paygate: the option ${name} is required`);
    }
  }

  constructor(container: Record<string, unknown>, options: PaygateOptions) {
    super(container, options);
    this.options = options;
    this.client = new PaygateClient(options);
  }

  private transactionId(data: Record<string, unknown> | undefined): string {
    const id = text(data?.paygate_id);
    if (!id) throw new MedusaError(MedusaError.Types.INVALID_DATA, "paygate: the session has no paygate transaction (data.paygate_id)");
    return id;
  }

  async initiatePayment({ amount, currency_code, data, context }: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const currency = currency_code.toUpperCase();
    if (!CURRENCIES.has(currency)) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, `paygate: the currency ${currency} is not supported (USD or NGN)`);
    }
    const email = text(context?.customer?.email) ?? text(data?.email);
    if (!email) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "paygate: the customer's e-mail is required (a signed-in customer, or data.email)");
    }
    const sessionId = text(data?.session_id) ?? text(context?.idempotency_key);
    const medusaAmount = fiatAmount(amount);
    const name = [context?.customer?.first_name, context?.customer?.last_name].filter(Boolean).join(" ");
    const returnUrl = text(data?.return_url) ?? this.options.returnUrl;
    const cancelUrl = text(data?.cancel_url) ?? this.options.cancelUrl;
    const transaction = await this.client.initialize({
      amount: medusaAmount,
      currency,
      customer: { email, ...(name ? { name } : {}) },
      meta: { medusa_session_id: sessionId, medusa_amount: medusaAmount },
      ...(returnUrl ? { return_url: returnUrl } : {}),
      ...(cancelUrl ? { cancel_url: cancelUrl } : {}),
    });
    return {
      id: transaction.id,
      status: PaymentSessionStatus.PENDING,
      data: {
        session_id: sessionId,
        paygate_id: transaction.id,
        paygate_reference: transaction.reference,
        checkout_url: transaction.checkout_url,
        currency,
        medusa_amount: medusaAmount,
      },
    };
  }

  async getPaymentStatus({ data }: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const transaction = await this.client.retrieve(this.transactionId(data));
    return { status: statusOf(transaction), data: { ...data, ...snapshot(transaction) } };
  }

  /** Read from paygate: received is authorized and captured at once; underpaid or unpaid is not authorized. */
  authorizePayment({ data }: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    return this.getPaymentStatus({ data });
  }

  /** paygate's money is captured when it is received: nothing to do. */
  async capturePayment({ data }: CapturePaymentInput): Promise<CapturePaymentOutput> {
    return { data: data ?? {} };
  }

  /** paygate cannot take a payment back: a checkout nobody paid simply expires there. */
  async cancelPayment({ data }: CancelPaymentInput): Promise<CancelPaymentOutput> {
    return { data: data ?? {} };
  }

  async deletePayment({ data }: DeletePaymentInput): Promise<DeletePaymentOutput> {
    return { data: data ?? {} };
  }

  async refundPayment({ amount, data, context }: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const id = this.transactionId(data);
    const currency = text(data?.currency) ?? "USD";
    const value = fiatAmount(amount);
    const previous = Array.isArray(data?.paygate_refunds) ? (data.paygate_refunds as unknown[]) : [];
    const key = `medusa-refund-${context?.idempotency_key ?? `${id}-${previous.length}-${value}`}`;
    const refund = await this.client.refund(id, value, currency, key);
    const entry = {
      id: refund.id,
      state: refund.state,
      amount: refund.amount,
      currency: refund.currency,
      fiat_amount: value,
      refund_url: refund.refund_url,
    };
    return { data: { ...data, paygate_refunds: [...previous, entry] } };
  }

  async retrievePayment({ data }: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const transaction = await this.client.retrieve(this.transactionId(data));
    return { data: { ...data, ...snapshot(transaction) } };
  }

  /** A changed cart total needs a new transaction (its amount is locked): Medusa makes a new session for it. */
  async updatePayment({ data }: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    return { data: data ?? {} };
  }

  async getWebhookActionAndData(payload: ProviderWebhookPayload["payload"]): Promise<WebhookActionResult> {
    return actionOf(verifyEvent(this.options.webhookSecret, payload.rawData, payload.headers));
  }
}

export default PaygateProviderService;

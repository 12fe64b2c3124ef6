// The few paygate REST calls the provider makes (docs/rest-api.md, docs/refunds.md), with plain fetch.
import { MedusaError } from "@medusajs/framework/utils";

/** paygate's transaction as GET /v1/transaction/:id shows it, as much as the provider reads. */
export interface PaygateTransaction {
  id: string;
  reference: string;
  status: "INITIATED" | "PENDING" | "SUCCESSFUL" | "ABANDONED";
  payment_amount: number | null;
  amount_paid: number | null;
  checkout_url?: string;
  reversed_at: string | null;
  meta: { payment?: { state: string | null } | null } | null;
}

/** A refund as POST /v1/transaction/:id/refunds answers it. */
export interface PaygateRefund {
  id: string;
  state: string;
  amount: string;
  currency: string;
  /** The claim link for the customer, shown once (null when the transaction has a refund address). */
  refund_url: string | null;
}

export interface PaygateClientOptions {
  /** paygate's base URL, e.g. https://pay.example.com */
  url: string;
  /** The merchant's public key (pub_test_… or pub_live_…). */
  publicKey: string;
  /** The merchant's secret key (sec_test_… or sec_live_…). */
  secretKey: string;
}

/**
 * A refusal by paygate, as Medusa answers it: paygate's 4xx is the request's fault (400 `invalid_data` with paygate's
 * message), anything else paygate's or the network's (500).
 */
export function paygateError(status: number, message: string): MedusaError {
  return new MedusaError(status >= 400 && status < 500 ? MedusaError.Types.INVALID_DATA : MedusaError.Types.UNEXPECTED_STATE, message);
}

export class PaygateClient {
  private readonly base: string;

  constructor(private readonly options: PaygateClientOptions) {
    this.base = options.url.replace(/\/+$/, "");
  }

  /** POST /v1/transaction: a new transaction and its checkout URL. */
  initialize(body: {
    amount: string;
    currency: string;
    customer: { email: string; name?: string };
    description?: string;
    meta: Record<string, unknown>;
    return_url?: string;
    cancel_url?: string;
  }): Promise<PaygateTransaction> {
    return this.call("POST", "/v1/transaction", this.options.publicKey, body);
  }

  retrieve(id: string): Promise<PaygateTransaction> {
    return this.call("GET", `/v1/transaction/${encodeURIComponent(id)}`, this.options.secretKey);
  }

  /** POST /v1/transaction/:id/refunds, an amount in the transaction's fiat; the key makes a retry safe. */
  refund(id: string, amount: string, currency: string, idempotencyKey: string): Promise<PaygateRefund> {
    const body = { amount_kind: "custom", amount, amount_currency: currency };
    return this.call("POST", `/v1/transaction/${encodeURIComponent(id)}/refunds`, this.options.secretKey, body, idempotencyKey);
  }

  private async call<T>(method: string, route: string, key: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    const response = await fetch(`${this.base}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    let parsed: { status?: string; message?: string; errors?: { message: string }[]; data?: T } = {};
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw paygateError(response.status, `paygate answered ${response.status} with a body that is not JSON`);
    }
    if (!response.ok || parsed.data === undefined) {
      const details = parsed.errors?.map((e) => e.message).join("; ");
      throw paygateError(response.status, `paygate: ${parsed.message ?? `HTTP ${response.status}`}${details ? ` (${details})` : ""}`);
    }
    return parsed.data;
  }
}

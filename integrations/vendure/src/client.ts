// paygate's REST API, as much as the plugin uses: initialize a transaction, read one, make a refund
// (docs/rest-api.md). Plain fetch with the merchant's secret key; every failure names paygate's answer.

export interface PaygateSettings {
  /** paygate's address, e.g. https://pay.example.com (no trailing /v1). */
  apiUrl: string;
  /** The merchant's public key (pub_test_… / pub_live_…): it names the merchant and mode at initialize. */
  publicKey: string;
  /** The merchant's secret key (sec_…): initialize with policies, read, refund. */
  secretKey: string;
}

/** What the plugin reads of a transaction (GET /v1/transaction/:id, table 2.2 and its extensions). */
export interface PaygateTransaction {
  id: string;
  reference: string;
  /** INITIATED, PENDING, SUCCESSFUL or ABANDONED (a transaction the customer has not picked a coin for yet: no status change). */
  status: string;
  checkout_url?: string | null;
  payment_amount: number | null;
  amount_paid: number | null;
  /** The coin's numeric id once the customer picked one (3 USDT, 4 BTC, 5 BNB, 6 ETH, 7 LTC, 8 USDC). */
  payment_currency: number | null;
  /** How far the payment has come (absent before the customer picks a coin). The merchant's own meta is the envelope's. */
  meta?: { payment?: { state: string; amount_confirmed: string; amount_unconfirmed: string } | null } | null;
}

export interface PaygateRefund {
  id: string;
  state: "pending" | "succeeded" | "canceled";
  amount: string;
  currency: string;
  refund_url: string | null;
}

/** paygate refused the request (`status`: its HTTP status) or could not be reached (`status` 0). */
export class PaygateError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

interface Envelope<T> {
  status: string;
  message?: string;
  data?: T;
}

export class PaygateClient {
  constructor(private readonly settings: PaygateSettings) {}

  private async call<T>(method: "GET" | "POST", route: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const url = `${this.settings.apiUrl.replace(/\/+$/, "")}${route}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.settings.secretKey}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new PaygateError(`paygate ${method} ${route} could not be reached: ${cause}`, 0);
    }
    const text = await response.text();
    let envelope: Envelope<T> | null = null;
    try {
      envelope = JSON.parse(text) as Envelope<T>;
    } catch {
      envelope = null;
    }
    if (!response.ok || !envelope?.data) {
      throw new PaygateError(`paygate ${method} ${route} answered ${response.status}: ${envelope?.message ?? text.slice(0, 200)}`, response.status);
    }
    return envelope.data;
  }

  /** POST /v1/transaction with the secret key and the public key in the body (so per-payment policies are allowed). */
  initialize(body: Record<string, unknown>, idempotencyKey: string): Promise<PaygateTransaction> {
    return this.call("POST", "/v1/transaction", { ...body, public_key: this.settings.publicKey }, idempotencyKey);
  }

  get(id: string): Promise<PaygateTransaction> {
    return this.call("GET", `/v1/transaction/${encodeURIComponent(id)}`);
  }

  refund(id: string, body: Record<string, unknown>, idempotencyKey: string): Promise<PaygateRefund> {
    return this.call("POST", `/v1/transaction/${encodeURIComponent(id)}/refunds`, body, idempotencyKey);
  }
}

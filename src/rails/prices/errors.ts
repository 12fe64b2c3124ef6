// Why a price feed could not quote. initiate turns every such failure into its 503
// (`quote_unavailable`); the message is for the operator's log, the reason for the API and metrics.

/**
 * Why a provider gave no usable price, in one word: the `reason` of
 * paygate_price_provider_failures_total and of a refused quote's message.
 */
export type PriceFailureReason =
  | "timeout"
  | "unreachable"
  | "rate_limited"
  | "forbidden"
  | "http_error"
  | "garbage"
  | "no_price"
  | "stale"
  | "unsupported"
  | "out_of_spread";

export class PriceFeedError extends Error {
  /** Set when the provider asked us to wait (HTTP 429, Retry-After): no upstream call before then. */
  readonly retryAfterMs: number | undefined;
  readonly reason: PriceFailureReason;

  constructor(message: string, options: { retryAfterMs?: number; cause?: unknown; reason?: PriceFailureReason } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PriceFeedError";
    this.retryAfterMs = options.retryAfterMs;
    this.reason = options.reason ?? (options.retryAfterMs !== undefined ? "rate_limited" : "garbage");
  }
}

/** The reason of any failure a feed threw; something not a PriceFeedError is the provider's garbage. */
export function reasonOf(error: unknown): PriceFailureReason {
  return error instanceof PriceFeedError ? error.reason : "garbage";
}

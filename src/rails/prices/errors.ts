// Why a price feed could not quote. initiate turns every such failure into its 503
// (`quote_unavailable`); the message is for the operator's log.

export class PriceFeedError extends Error {
  /** Set when the provider asked us to wait (HTTP 429, Retry-After): no upstream call before then. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PriceFeedError";
    this.retryAfterMs = options.retryAfterMs;
  }
}

// One GET to a price provider over the shared outbound client, every failure a PriceFeedError; an
// HTTP 429 also says how long to leave the provider alone.
import { describeFailure, fetchText, type OutboundFailure } from "../http/outbound.ts";
import { type PriceFailureReason, PriceFeedError } from "./errors.ts";

/** A price body is a few kilobytes; anything far larger is not the API we asked. */
const MAX_BODY_BYTES = 1_000_000;
/** How long to leave a provider alone after an HTTP 429 that gives no Retry-After. */
const DEFAULT_RETRY_AFTER_MS = 5_000;
/** The shortest and longest waits honoured; a Retry-After outside is moved to the nearest. */
const MIN_RETRY_AFTER_MS = 1_000;
const MAX_RETRY_AFTER_MS = 60_000;

export interface GetOptions {
  provider: string;
  headers?: Record<string, string>;
  timeoutMs: number;
  /** Statuses that mean "wait" (Retry-After honoured) besides 429, e.g. Binance's 418 ban. */
  waitStatuses?: readonly number[];
}

export async function getText(url: URL, { provider, headers = {}, timeoutMs, waitStatuses = [] }: GetOptions): Promise<string> {
  const result = await fetchText(url, { headers: { accept: "application/json", ...headers }, timeoutMs, maxBytes: MAX_BODY_BYTES });
  if (result.ok) return result.value;
  const { failure } = result;
  if (failure.kind === "status" && (failure.status === 429 || waitStatuses.includes(failure.status))) {
    const retryAfterMs = Math.min(Math.max(failure.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS, MIN_RETRY_AFTER_MS), MAX_RETRY_AFTER_MS);
    throw new PriceFeedError(`${provider}: rate limited (HTTP ${failure.status}); next attempt in ${Math.ceil(retryAfterMs / 1000)} s`, {
      retryAfterMs,
    });
  }
  throw new PriceFeedError(`${provider}: ${describeFailure(failure)}`, {
    reason: reasonOfFailure(failure),
    ...(failure.kind === "transport" ? { cause: failure.cause } : {}),
  });
}

function reasonOfFailure(failure: OutboundFailure): PriceFailureReason {
  if (failure.kind === "timeout") return "timeout";
  if (failure.kind === "transport") return "unreachable";
  if (failure.kind === "too-large") return "garbage";
  return failure.status === 401 || failure.status === 403 ? "forbidden" : "http_error";
}

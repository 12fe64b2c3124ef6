// One GET to a price provider with Node's fetch: a hard timeout over the whole exchange (headers
// and body), and every failure turned into a PriceFeedError that says what went wrong.
import { PriceFeedError } from "./errors.ts";

/** A price body is a few kilobytes; anything far larger is not the API we asked. */
const MAX_BODY_CHARS = 1_000_000;
/** How long to leave a provider alone after an HTTP 429 that gives no Retry-After. */
const DEFAULT_RETRY_AFTER_MS = 5_000;
/** The longest Retry-After honoured; a longer one is shortened to this. */
const MAX_RETRY_AFTER_MS = 60_000;

export interface GetOptions {
  provider: string;
  headers?: Record<string, string>;
  timeoutMs: number;
}

export async function getText(url: URL, { provider, headers = {}, timeoutMs }: GetOptions): Promise<string> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: "application/json", ...headers }, signal });
  } catch (error) {
    throw transportError(provider, error, timeoutMs, signal);
  }
  if (response.status === 429) {
    await discard(response);
    const retryAfterMs = retryAfter(response.headers.get("retry-after"));
    throw new PriceFeedError(`${provider}: rate limited (HTTP 429); next attempt in ${Math.ceil(retryAfterMs / 1000)} s`, { retryAfterMs });
  }
  if (!response.ok) {
    await discard(response);
    throw new PriceFeedError(`${provider}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw transportError(provider, error, timeoutMs, signal);
  }
  if (text.length > MAX_BODY_CHARS) throw new PriceFeedError(`${provider}: the response body is larger than ${MAX_BODY_CHARS} characters`);
  return text;
}

function transportError(provider: string, error: unknown, timeoutMs: number, signal: AbortSignal): PriceFeedError {
  if (signal.aborted) return new PriceFeedError(`${provider}: no complete answer within ${timeoutMs} ms`, { cause: error });
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String((error as Error)?.message ?? error);
  return new PriceFeedError(`${provider}: request failed (${cause})`, { cause: error });
}

async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to free.
  }
}

/** Retry-After in seconds or as an HTTP date; a default when absent or unreadable. */
function retryAfter(header: string | null): number {
  if (header === null) return DEFAULT_RETRY_AFTER_MS;
  const ms = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms)) return DEFAULT_RETRY_AFTER_MS;
  return Math.min(Math.max(ms, 1000), MAX_RETRY_AFTER_MS);
}

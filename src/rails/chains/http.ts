// One HTTP exchange with a chain node through Node's fetch: a hard timeout over the whole exchange
// (headers and body), and every failure turned into a ChainNodeError that says what went wrong.
import { ChainNodeError } from "./errors.ts";

/** An address history page or a log list is at most a few megabytes; far more is not the API we asked. */
const MAX_BODY_CHARS = 32_000_000;
/** How much of an error body is quoted in a message. */
const QUOTED_BODY_CHARS = 200;

export interface NodeRequest {
  /** Names the node in messages, e.g. "BTC live Esplora (blockstream.info)". */
  node: string;
  timeoutMs: number;
  /** A JSON body to POST; a GET without it. */
  json?: string;
}

export async function requestText(url: URL, { node, timeoutMs, json }: NodeRequest): Promise<string> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: json === undefined ? "GET" : "POST",
      headers: json === undefined ? { accept: "application/json, text/plain" } : { accept: "application/json", "content-type": "application/json" },
      ...(json === undefined ? {} : { body: json }),
      signal,
    });
  } catch (error) {
    throw transportError(node, error, timeoutMs, signal);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw transportError(node, error, timeoutMs, signal);
  }
  if (!response.ok) {
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    const quoted = quote(text);
    throw new ChainNodeError(`${node}: ${response.status === 429 ? `rate limited (${status})` : status}${quoted ? `: ${quoted}` : ""}`);
  }
  if (text.length > MAX_BODY_CHARS) throw new ChainNodeError(`${node}: the response body is larger than ${MAX_BODY_CHARS} characters`);
  return text;
}

/** A short, single-line excerpt of a body for a message. */
export function quote(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > QUOTED_BODY_CHARS ? `${line.slice(0, QUOTED_BODY_CHARS)}…` : line;
}

/** "host" of a node URL, for messages: never its path or query, where API keys live. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "invalid URL";
  }
}

function transportError(node: string, error: unknown, timeoutMs: number, signal: AbortSignal): ChainNodeError {
  if (signal.aborted) return new ChainNodeError(`${node}: no complete answer within ${timeoutMs} ms`, { cause: error });
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
  return new ChainNodeError(`${node}: request failed (${cause})`, { cause: error });
}

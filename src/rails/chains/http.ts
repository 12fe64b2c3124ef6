// One exchange with a chain node over the shared outbound client, every failure a ChainNodeError
// that names the node and says what went wrong.
import { describeFailure, fetchText, type OutboundFailure } from "../http/outbound.ts";
import { type ChainFailureReason, ChainNodeError } from "./errors.ts";

/** An address history page or a log list is at most a few megabytes; far more is not the API we asked. */
const MAX_BODY_BYTES = 32_000_000;

export interface NodeRequest {
  /** Names the node in messages, e.g. "BTC live Esplora (blockstream.info)". */
  node: string;
  timeoutMs: number;
  /** A JSON body to POST; a GET without it. */
  json?: string;
  /** More request headers, such as a provider's API key (TronGrid's TRON-PRO-API-KEY). */
  headers?: Readonly<Record<string, string>>;
}

export async function requestText(url: URL, { node, timeoutMs, json, headers = {} }: NodeRequest): Promise<string> {
  const result = await fetchText(url, {
    timeoutMs,
    maxBytes: MAX_BODY_BYTES,
    ...(json === undefined
      ? { headers: { ...headers, accept: "application/json, text/plain" } }
      : { method: "POST", headers: { ...headers, accept: "application/json", "content-type": "application/json" }, body: json }),
  });
  if (result.ok) return result.value;
  const { failure } = result;
  throw new ChainNodeError(`${node}: ${describeFailure(failure)}`, {
    reason: failureReason(failure),
    ...(failure.kind === "transport" ? { cause: failure.cause } : {}),
  });
}

/** The metric's reason for an exchange that brought no usable answer. */
export function failureReason(failure: OutboundFailure): ChainFailureReason {
  switch (failure.kind) {
    case "timeout":
      return "timeout";
    case "transport":
      return "unreachable";
    case "too-large":
      return "malformed";
    case "status":
      return failure.status === 429 ? "rate_limited" : "http_status";
  }
}

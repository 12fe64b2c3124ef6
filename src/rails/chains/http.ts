// One exchange with a chain node over the shared outbound client, every failure a ChainNodeError
// that names the node and says what went wrong.
import { describeFailure, fetchText } from "../http/outbound.ts";
import { ChainNodeError } from "./errors.ts";

/** An address history page or a log list is at most a few megabytes; far more is not the API we asked. */
const MAX_BODY_BYTES = 32_000_000;

export interface NodeRequest {
  /** Names the node in messages, e.g. "BTC live Esplora (blockstream.info)". */
  node: string;
  timeoutMs: number;
  /** A JSON body to POST; a GET without it. */
  json?: string;
}

export async function requestText(url: URL, { node, timeoutMs, json }: NodeRequest): Promise<string> {
  const result = await fetchText(url, {
    timeoutMs,
    maxBytes: MAX_BODY_BYTES,
    ...(json === undefined
      ? { headers: { accept: "application/json, text/plain" } }
      : { method: "POST", headers: { accept: "application/json", "content-type": "application/json" }, body: json }),
  });
  if (result.ok) return result.value;
  const { failure } = result;
  throw new ChainNodeError(`${node}: ${describeFailure(failure)}`, failure.kind === "transport" ? { cause: failure.cause } : {});
}

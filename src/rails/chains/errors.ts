// Why a chain node could not tell what an address received. The caller logs the message and polls
// again later; messages name the node by its host only, since RPC URLs often carry an API key.

/**
 * What went wrong, for the metric paygate_chain_node_errors_total: no answer in time; no connection;
 * an HTTP error status, or 429; an answer that is not the API's (garbage); the node's own JSON-RPC
 * error; a node on another network than configured; credentials refused; a node lagging behind the
 * others' head (node-pool.ts); anything else.
 */
export type ChainFailureReason =
  | "timeout"
  | "unreachable"
  | "http_status"
  | "rate_limited"
  | "malformed"
  | "rpc_error"
  | "wrong_network"
  | "refused"
  | "lagging"
  | "other";

export class ChainNodeError extends Error {
  readonly reason: ChainFailureReason;

  constructor(message: string, options: { cause?: unknown; reason?: ChainFailureReason } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ChainNodeError";
    this.reason = options.reason ?? "other";
  }
}

/** No node is configured for a currency in a mode; the message names the variable to set. */
export class ChainNotConfiguredError extends ChainNodeError {
  constructor(message: string) {
    super(message);
    this.name = "ChainNotConfiguredError";
  }
}

// Why a chain node could not tell what an address received. The caller logs the message and polls
// again later; messages name the node by its host only, since RPC URLs often carry an API key.

export class ChainNodeError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ChainNodeError";
  }
}

/** No node is configured for a currency in a mode; the message names the variable to set. */
export class ChainNotConfiguredError extends ChainNodeError {
  constructor(message: string) {
    super(message);
    this.name = "ChainNotConfiguredError";
  }
}

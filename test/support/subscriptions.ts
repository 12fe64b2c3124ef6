// GraphQL subscription clients for the tests, without a browser: graphql-ws over a real WebSocket
// (the `ws` package) and graphql-sse over Node's fetch, each read as a queue of what arrived.
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";
import { createClient as createSseClient } from "graphql-sse";
import { createClient as createWsClient } from "graphql-ws";
import WebSocket from "ws";

/** What a subscription delivered: a result (data and/or errors), or the failure the client threw. */
export type Delivery<T> =
  | { result: { data?: T | null; errors?: readonly { message: string; extensions?: Record<string, unknown> }[] } }
  | { thrown: unknown };

export interface Updates<T> {
  /** The next delivery; fails after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Delivery<T>>;
  /** The next delivery's data; fails if it is an error. */
  data(timeoutMs?: number): Promise<T>;
  /** Fails if anything arrives within `ms`. */
  nothingWithin(ms: number): Promise<void>;
  /** Whether the stream has ended (completed or failed). */
  readonly ended: boolean;
  close(): Promise<void>;
}

function queue<T>(iterator: AsyncIterator<unknown>, onClose: () => Promise<void> | void): Updates<T> {
  const items: Delivery<T>[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  const push = (item: Delivery<T>) => {
    items.push(item);
    for (const wake of waiters.splice(0)) wake();
  };
  void (async () => {
    try {
      for (;;) {
        const step = await iterator.next();
        if (step.done) break;
        push({ result: step.value as Extract<Delivery<T>, { result: unknown }>["result"] });
      }
    } catch (error) {
      push({ thrown: error });
    } finally {
      ended = true;
      for (const wake of waiters.splice(0)) wake();
    }
  })();
  const updates: Updates<T> = {
    async next(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (items.length === 0) {
        if (ended) throw new Error("the subscription ended without another delivery");
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`nothing arrived within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return items.shift() as Delivery<T>;
    },
    async data(timeoutMs) {
      const delivery = await updates.next(timeoutMs);
      if ("thrown" in delivery) throw new Error(`the subscription failed: ${JSON.stringify(delivery.thrown)}`);
      if (delivery.result.errors) throw new Error(`the subscription answered errors: ${JSON.stringify(delivery.result.errors)}`);
      return delivery.result.data as T;
    },
    async nothingWithin(ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      if (items.length > 0) throw new Error(`expected nothing, got ${JSON.stringify(items[0])}`);
    },
    get ended() {
      return ended;
    },
    async close() {
      await iterator.return?.();
      await onClose();
    },
  };
  return updates;
}

/** A WebSocket that sends extra handshake headers (a browser's Origin, say). */
function webSocketWith(headers: Record<string, string>) {
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  };
}

export function subscribeWs<T, V extends Record<string, unknown>>(
  baseUrl: string,
  document: TypedDocumentNode<T, V>,
  variables: V,
  options: { authorization?: string; headers?: Record<string, string> } = {},
): Updates<T> & { closeEvent: Promise<{ code: number; reason: string }> } {
  let closed: (event: { code: number; reason: string }) => void = () => {};
  const closeEvent = new Promise<{ code: number; reason: string }>((resolve) => {
    closed = resolve;
  });
  const client = createWsClient({
    url: `${baseUrl.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: options.headers ? webSocketWith(options.headers) : WebSocket,
    connectionParams: options.authorization ? { authorization: options.authorization } : undefined,
    retryAttempts: 0,
    on: {
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string | Buffer };
        closed({ code, reason: String(reason) });
      },
    },
  });
  const iterator = client.iterate({ query: print(document), variables });
  return Object.assign(
    queue<T>(iterator, () => client.dispose()),
    { closeEvent },
  );
}

export function subscribeSse<T, V extends Record<string, unknown>>(
  baseUrl: string,
  document: TypedDocumentNode<T, V>,
  variables: V,
  options: { authorization?: string } = {},
): Updates<T> {
  const client = createSseClient({
    url: `${baseUrl}/graphql/stream`,
    headers: options.authorization ? { authorization: options.authorization } : {},
    retryAttempts: 0,
  });
  const iterator = client.iterate({ query: print(document), variables });
  return queue<T>(iterator, () => client.dispose());
}

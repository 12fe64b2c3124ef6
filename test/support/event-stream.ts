// A client of GET /v1/events/stream for the tests: reads the Server-Sent Events as they come
// (eventsource-parser, as `paygate listen` does) and lets a test wait for a number of them.
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface StreamClient {
  status: number;
  /** The JSON error body of a refused stream. */
  error: { message: string; reason: string; code: string } | null;
  headers: Headers;
  events: EventSourceMessage[];
  comments: string[];
  /** Resolves when the service ends the stream (or the test closes it). */
  ended: Promise<void>;
  /** Resolves once `count` events (or, with `comments`, comments) have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, options?: { comments?: boolean; timeoutMs?: number }): Promise<void>;
  close(): void;
}

export async function openEventStream(
  baseUrl: string,
  key: string | undefined,
  options: { query?: Record<string, string>; lastEventId?: string } = {},
): Promise<StreamClient> {
  const url = new URL("/v1/events/stream", baseUrl);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: {
      accept: "text/event-stream",
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(options.lastEventId === undefined ? {} : { "last-event-id": options.lastEventId }),
    },
    signal: abort.signal,
  });
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const client: StreamClient = {
    status: response.status,
    error: null,
    headers: response.headers,
    events,
    comments,
    waitFor(count, { comments: ofComments = false, timeoutMs = 20_000 } = {}) {
      const done = () => (ofComments ? comments : events).length >= count;
      if (done()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `expected ${count} ${ofComments ? "comments" : "events"} within ${timeoutMs} ms, got ${(ofComments ? comments : events).length}`,
            ),
          );
        }, timeoutMs);
        const check = () => {
          if (!done()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    close: () => abort.abort(),
    ended: Promise.resolve(),
  };
  if (response.status !== 200) {
    client.error = (await response.json()) as StreamClient["error"];
    return client;
  }
  const parser = createParser({
    onEvent: (message) => {
      events.push(message);
      for (const check of [...waiters]) check();
    },
    onComment: (comment) => {
      comments.push(comment);
      for (const check of [...waiters]) check();
    },
  });
  client.ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body ?? []) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // closed by the test (abort) or by the service
    }
  })();
  return client;
}

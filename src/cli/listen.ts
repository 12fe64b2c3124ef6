// `paygate listen --forward-to URL` (issue 27, as Stripe's CLI): follows a running paygate's live
// event stream (GET /v1/events/stream) with a secret key, and forwards each event's exact body to a
// local URL signed with a secret made for this session (Standard Webhooks headers), one line per
// delivery. It needs no database and leaves nothing behind: no endpoint, no row, only the stream.
import { randomBytes } from "node:crypto";
import { createParser } from "eventsource-parser";
import { signatureHeaders } from "../webhooks/signing.ts";
import type { CliContext } from "./commands.ts";
import { UsageError } from "./commands.ts";

export interface ListenOptions {
  forwardTo?: string;
  apiUrl?: string;
  apiKey?: string;
  events?: string;
}

/** A refusal `paygate listen` explains and exits 1 on (the runner prints `paygate: <message>`). */
export class ListenError extends Error {
  override readonly name = "ListenError";
}

/** Where paygate listens unless --api-url or PAYGATE_API_URL says otherwise: the service's default address. */
const DEFAULT_API_URL = "http://127.0.0.1:3000";
/** How long a receiver may take to answer one forwarded event. */
const FORWARD_TIMEOUT_MS = 10_000;
/** Waits between reconnections: doubled after each failure, up to the last. */
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;

/** A signing secret for this session only: `whsec_` and 32 random bytes, as paygate's own. */
export function sessionSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

function httpUrl(value: string, option: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${option} must be an http(s) URL, such as http://localhost:4000/webhooks.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${option} must be an http(s) URL, such as http://localhost:4000/webhooks.`);
  return url;
}

const time = () => new Date().toISOString().slice(11, 19);

/** Runs until Ctrl-C (SIGINT, SIGTERM) or the context's signal; rejects with a ListenError the user can act on. */
export async function listen(ctx: CliContext, options: ListenOptions): Promise<void> {
  if (!options.forwardTo) throw new UsageError("--forward-to is required: the local URL that receives the events (http://localhost:4000/webhooks).");
  const forwardTo = httpUrl(options.forwardTo, "--forward-to");
  const apiUrl = httpUrl(options.apiUrl ?? ctx.env.PAYGATE_API_URL ?? DEFAULT_API_URL, "--api-url");
  const apiKey = options.apiKey ?? ctx.env.PAYGATE_SECRET_KEY;
  if (!apiKey) throw new UsageError("--api-key is required (or PAYGATE_SECRET_KEY): the merchant's secret key, sec_test_… or sec_live_….");
  if (!apiKey.startsWith("sec_")) throw new ListenError("--api-key must be a secret key (sec_test_… or sec_live_…): public keys cannot read events");
  const types = (options.events ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  const streamUrl = new URL("/v1/events/stream", apiUrl);
  if (types.length > 0) streamUrl.searchParams.set("types", types.join(","));

  const secret = sessionSecret();
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  ctx.signal?.addEventListener("abort", onSignal);
  const say = (line: string): void => {
    ctx.stdout.write(`${line}\n`);
  };

  let lastEventId: string | undefined;
  let ready = false;
  let failures = 0;
  try {
    while (!stop.signal.aborted) {
      let response: Response;
      try {
        response = await fetch(streamUrl, {
          headers: {
            authorization: `Bearer ${apiKey}`,
            accept: "text/event-stream",
            ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
          },
          signal: stop.signal,
        });
      } catch (error) {
        if (stop.signal.aborted) break;
        const cause = causeOf(error);
        if (!ready)
          throw new ListenError(`cannot reach paygate at ${apiUrl.origin} (${cause}): is it running there? Pass its address with --api-url`);
        failures++;
        say(`${time()}  connection to ${apiUrl.origin} lost (${cause}); reconnecting…`);
        await pause(backoff(failures), stop.signal);
        continue;
      }
      if (response.status !== 200) {
        const message = await errorMessage(response);
        if (response.status === 401) throw new ListenError(`401: the secret key was refused; pass --api-key sec_test_… (${message})`);
        // Before the first connection every refusal is final; after it, a full instance or cap is waited out.
        if (!ready || (response.status !== 429 && response.status !== 503)) throw new ListenError(`${response.status}: ${message}`);
        failures++;
        say(`${time()}  ${response.status}: ${message}; retrying…`);
        await pause(backoff(failures), stop.signal);
        continue;
      }
      if (!ready) {
        ready = true;
        say(`Ready! Your webhook signing secret is ${secret} (^C to quit)`);
        say(`Forwarding the ${apiKey.startsWith("sec_live_") ? "live" : "test"} events of ${apiUrl.origin} to ${forwardTo.href}`);
      } else {
        say(`${time()}  reconnected${lastEventId === undefined ? "" : `, resuming after ${lastEventId}`}`);
      }
      failures = 0;
      let deliveries: Promise<void> = Promise.resolve();
      const parser = createParser({
        onEvent: (message) => {
          if (message.event === "error") {
            say(`${time()}  the stream reported: ${message.data}`);
            return;
          }
          const event = parseMessage(message.data);
          if (!event) return;
          if (message.id) lastEventId = message.id;
          deliveries = deliveries.then(async () => say(await forward(forwardTo, secret, event)));
        },
      });
      let reason = "the service closed the stream";
      try {
        const decoder = new TextDecoder();
        for await (const chunk of response.body ?? []) parser.feed(decoder.decode(chunk, { stream: true }));
      } catch (error) {
        reason = causeOf(error);
      }
      await deliveries;
      if (stop.signal.aborted) break;
      failures++;
      say(`${time()}  connection to ${apiUrl.origin} lost (${reason}); reconnecting…`);
      await pause(backoff(failures), stop.signal);
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    ctx.signal?.removeEventListener("abort", onSignal);
  }
}

interface StreamedEvent {
  id: string;
  type: string;
  body: string;
}

function parseMessage(data: string): StreamedEvent | null {
  try {
    const parsed: unknown = JSON.parse(data);
    if (typeof parsed !== "object" || parsed === null) return null;
    const { id, type, body } = parsed as Record<string, unknown>;
    return typeof id === "string" && typeof type === "string" && typeof body === "string" ? { id, type, body } : null;
  } catch {
    return null;
  }
}

/** POSTs one event's exact body, signed with the session's secret; the line to print. */
async function forward(url: URL, secret: string, event: StreamedEvent): Promise<string> {
  const started = performance.now();
  const head = `${time()}  ${event.type.padEnd(18)} ${event.id}`;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "paygate-listen", ...signatureHeaders(secret, event.id, new Date(), event.body) },
      body: event.body,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    return `${head}  → ${response.status} (${Math.round(performance.now() - started)} ms)`;
  } catch (error) {
    return `${head}  → error: ${causeOf(error)} (is your receiver running at ${url.href}?)`;
  }
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === "string") return body.message;
  } catch {
    // not paygate's JSON error: show the text
  }
  return text.slice(0, 200) || response.statusText;
}

/** fetch's "fetch failed" hides the reason (ECONNREFUSED, a certificate) in `cause`. */
function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) return "code" in cause && typeof cause.code === "string" ? `${cause.code}: ${cause.message}` : cause.message;
  return error.name === "TimeoutError" ? "timed out" : error.message;
}

function backoff(failures: number): number {
  return Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** (failures - 1));
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

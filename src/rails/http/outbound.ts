// Every outbound HTTP exchange: chain nodes, price providers and merchants' webhook URLs, on undici.
// This is the one place that bounds them: one deadline over connecting, the headers and the whole
// body; a cap on the body enforced while reading it; no redirects (undici's `request` follows none);
// and, for URLs a merchant chooses, a guard that only lets connections reach public addresses.
// Failures are returned as descriptions, never thrown, so each caller words them as its own error.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent, request as undiciRequest, type Dispatcher } from "undici";
import { isPublicAddress } from "../../core/merchants/webhook-url.ts";

export interface OutboundRequest {
  /** GET unless given. */
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** One deadline for connecting, the headers and the whole body together. */
  timeoutMs: number;
  /** fetchText: the largest body accepted. fetchPrefix: how much of the body is kept. */
  maxBytes: number;
  /** Connect only to public addresses (no loopback, private, link-local, …): for URLs that merchants choose. */
  publicOnly?: boolean;
  /**
   * With publicOnly: the private addresses that may be reached all the same (the operator's choice).
   * The answer then says whether it may have come from one (`privateAddress`).
   */
  privateExceptions?: PrivateExceptions;
}

/** Private addresses a publicOnly request may connect to, by the URL's host name or the address. */
export interface PrivateExceptions {
  allows(hostname: string, address: string): boolean;
}

export interface OutboundResponse {
  status: number;
  text: string;
  /** The connection may have reached a private address (one of `privateExceptions`); always false without publicOnly, which does not look. */
  privateAddress: boolean;
  /** The Retry-After header as sent (the first, if repeated), when there is one: the caller decides what it means. */
  retryAfter?: string;
}

/** Why no complete answer came back. */
export type ExchangeFailure =
  | { kind: "timeout"; timeoutMs: number }
  /** Bad URL or header, an address the guard refused (`refusedAddress`), or a connection error; `reason` is short and stable. */
  | { kind: "transport"; reason: string; cause?: unknown; refusedAddress?: true };

export type OutboundFailure =
  | ExchangeFailure
  /** A complete answer whose status is not 2xx. `retryAfterMs` is the Retry-After header, null when absent or unreadable. */
  | { kind: "status"; status: number; statusText: string; excerpt: string; retryAfterMs: number | null }
  | { kind: "too-large"; maxBytes: number };

export type Outcome<T, F = OutboundFailure> = { ok: true; value: T } | { ok: false; failure: F };

/** How much of an error body is read for its excerpt. */
const EXCERPT_READ_BYTES = 4096;
/** How much of a body is quoted in a message. */
const QUOTED_CHARS = 200;

/** The body of a 2xx answer, whole; any other status, or a body over `maxBytes`, is a failure. */
export async function fetchText(url: string | URL, request: OutboundRequest): Promise<Outcome<string>> {
  const outcome = await exchange(url, request, (status) => (isSuccess(status) ? request.maxBytes : EXCERPT_READ_BYTES));
  if (!outcome.ok) return outcome;
  const { status, statusText, headers, text, cut } = outcome.value;
  if (!isSuccess(status)) {
    return {
      ok: false,
      failure: { kind: "status", status, statusText, excerpt: quote(text), retryAfterMs: parseRetryAfter(headers["retry-after"]) },
    };
  }
  if (cut) return { ok: false, failure: { kind: "too-large", maxBytes: request.maxBytes } };
  return { ok: true, value: text };
}

/** Any answer, with at most the first `maxBytes` of its body; the rest is never read. */
export async function fetchPrefix(url: string | URL, request: OutboundRequest): Promise<Outcome<OutboundResponse, ExchangeFailure>> {
  const outcome = await exchange(url, request, () => request.maxBytes);
  if (!outcome.ok) return outcome;
  const { status, text, privateAddress, headers } = outcome.value;
  const retryAfter = firstHeader(headers["retry-after"]);
  return { ok: true, value: { status, text, privateAddress, ...(retryAfter === undefined ? {} : { retryAfter }) } };
}

/** The usual wording of a failure, e.g. "no complete answer within 300 ms" or "HTTP 500 Internal Server Error: boom". */
export function describeFailure(failure: OutboundFailure): string {
  switch (failure.kind) {
    case "timeout":
      return `no complete answer within ${failure.timeoutMs} ms`;
    case "transport":
      return `request failed: ${failure.reason}`;
    case "too-large":
      return `the response body is larger than ${failure.maxBytes} bytes`;
    case "status": {
      const status = `HTTP ${failure.status}${failure.statusText ? ` ${failure.statusText}` : ""}`;
      return `${failure.status === 429 ? `rate limited (${status})` : status}${failure.excerpt ? `: ${failure.excerpt}` : ""}`;
    }
  }
}

/** A short, single-line excerpt of a body for a message. */
export function quote(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}…` : line;
}

/** "host" of a URL, for messages: never its path or query, where API keys live. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "invalid URL";
  }
}

/**
 * Idle connections are kept at most 2 s: long enough to reuse one within a burst (a watcher pass,
 * a webhook backlog), short enough that a request rarely meets a connection the server is closing.
 */
const POOL = { keepAliveTimeout: 2_000, keepAliveMaxTimeout: 2_000 };

/** Raised by the guarded lookup; its message is the failure's reason as is. */
class RefusedAddressError extends Error {}

/** The first address `hostname` resolves to that is neither public nor an exception, if any. */
function refusedAmong(hostname: string, addresses: LookupAddress[], exceptions: PrivateExceptions | undefined): LookupAddress | undefined {
  return addresses.find((a) => !isPublicAddress(a.address) && !exceptions?.allows(hostname, a.address));
}

const resolvesToPrivate = (hostname: string, refused: LookupAddress) => `refused: ${hostname} resolves to a private address (${refused.address})`;

/**
 * Resolves like the default lookup but fails when any address is neither public nor one of the
 * exceptions. The socket connects to exactly the addresses checked here, so DNS rebinding between
 * check and connect is not possible.
 */
function guardedLookup(exceptions?: PrivateExceptions): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family ?? 0, hints: options.hints ?? 0, all: true }, (err, addresses) => {
      if (err) return callback(err, "");
      const refused = refusedAmong(hostname, addresses, exceptions);
      const first = addresses[0];
      if (refused) return callback(new RefusedAddressError(resolvesToPrivate(hostname, refused)), "");
      if (!first) return callback(Object.assign(new Error(`no addresses for ${hostname}`), { code: "ENOTFOUND" }), "");
      // Node asks for all addresses when it races IPv4 and IPv6 (autoSelectFamily), otherwise for one.
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

const openAgent = new Agent(POOL);
// The lookup runs for every new connection, and a pooled one only ever reached a checked address.
const publicOnlyAgent = new Agent({ ...POOL, connect: { lookup: guardedLookup() } });
/** One pool for each set of exceptions (the operator's settings make a few, once). */
const exceptionAgents = new WeakMap<PrivateExceptions, Agent>();

function agentAllowing(exceptions: PrivateExceptions): Agent {
  let agent = exceptionAgents.get(exceptions);
  if (!agent) {
    agent = new Agent({ ...POOL, connect: { lookup: guardedLookup(exceptions) } });
    exceptionAgents.set(exceptions, agent);
  }
  return agent;
}

/** Where a request's connection goes, and whether its answer may come from a private address; or why it may not go. */
type Route = { dispatcher: Dispatcher; privateAddress: boolean } | { refused: string };

const OPEN_ROUTE: Route = { dispatcher: openAgent, privateAddress: false };

/** The route of a publicOnly request to `host` (a name, or an IP address without brackets). */
async function guardedRoute(host: string, exceptions: PrivateExceptions | undefined, signal: AbortSignal): Promise<Route> {
  // Node connects to a literal IP without calling `lookup`, so those are checked here.
  if (isIP(host) !== 0) {
    if (isPublicAddress(host)) return { dispatcher: publicOnlyAgent, privateAddress: false };
    if (exceptions?.allows(host, host)) return { dispatcher: openAgent, privateAddress: true };
    return { refused: `refused: ${host} is a private address` };
  }
  // Without exceptions the connect-time lookup alone decides, and every answer is a public address's.
  if (!exceptions) return { dispatcher: publicOnlyAgent, privateAddress: false };
  // A name that may lead to an allowed private address is resolved first: its answer counts as public
  // only when every address was, and then goes through the public-only pool, whose lookup still
  // refuses a name that turned private in between.
  const addresses = await resolveAll(host, signal);
  if (addresses.every((a) => isPublicAddress(a.address))) return { dispatcher: publicOnlyAgent, privateAddress: false };
  const refused = refusedAmong(host, addresses, exceptions);
  if (refused) return { refused: resolvesToPrivate(host, refused) };
  return { dispatcher: agentAllowing(exceptions), privateAddress: true };
}

/** Every address of `host`, or the lookup's error; an abort (the deadline) ends the wait. */
function resolveAll(host: string, signal: AbortSignal): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const aborted = () => reject(signal.reason);
    signal.addEventListener("abort", aborted, { once: true });
    dnsLookup(host, { all: true }, (err, addresses) => {
      signal.removeEventListener("abort", aborted);
      if (err) reject(err);
      else resolve(addresses);
    });
  });
}

interface Answer {
  status: number;
  /** The connection may have reached a private address (one of the request's exceptions). */
  privateAddress: boolean;
  statusText: string;
  headers: Dispatcher.ResponseData["headers"];
  text: string;
  /** The body was longer than the limit; only the first bytes were read. */
  cut: boolean;
}

/** One exchange, its body read up to `limit(status)` bytes. */
async function exchange(
  target: string | URL,
  request: OutboundRequest,
  limit: (status: number) => number,
): Promise<Outcome<Answer, ExchangeFailure>> {
  let url: URL;
  try {
    url = new URL(target);
  } catch (error) {
    return transport("invalid URL", error);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return transport(`unsupported protocol ${url.protocol}`);
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;

  // undici's own timeouts bound idle gaps only; this one bounds the whole exchange, the lookup included.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), request.timeoutMs);
  try {
    const route = request.publicOnly ? await guardedRoute(host, request.privateExceptions, deadline.signal) : OPEN_ROUTE;
    if ("refused" in route) return refusedAddress(route.refused);
    const response = await undiciRequest(url, {
      method: request.method ?? "GET",
      headers: { "user-agent": "paygate", ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: deadline.signal,
      dispatcher: route.dispatcher,
    });
    const { text, cut } = await readBody(response.body, limit(response.statusCode));
    const { statusCode: status, statusText, headers } = response;
    return { ok: true, value: { status, privateAddress: route.privateAddress, statusText, headers, text, cut } };
  } catch (error) {
    if (deadline.signal.aborted) return { ok: false, failure: { kind: "timeout", timeoutMs: request.timeoutMs } };
    if (error instanceof RefusedAddressError) return refusedAddress(error.message);
    return transport(reasonOf(error), error);
  } finally {
    clearTimeout(timer);
  }
}

/** The body as text, up to `maxBytes`; beyond that the connection is dropped rather than read on. */
async function readBody(body: Dispatcher.ResponseData["body"], maxBytes: number): Promise<{ text: string; cut: boolean }> {
  // TextDecoder, like fetch's text(), drops a leading BOM that JSON.parse would choke on.
  const decoder = new TextDecoder();
  let text = "";
  let room = maxBytes;
  // Leaving the loop early destroys the stream, and undici then closes the connection.
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (chunk.length > room) {
      // `stream: true` holds back a character cut in half at the limit rather than mangling it.
      return { text: text + decoder.decode(chunk.subarray(0, room), { stream: true }), cut: true };
    }
    room -= chunk.length;
    text += decoder.decode(chunk, { stream: true });
  }
  return { text: text + decoder.decode(), cut: false };
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function transport(reason: string, cause?: unknown): { ok: false; failure: ExchangeFailure } {
  return { ok: false, failure: { kind: "transport", reason, ...(cause === undefined ? {} : { cause }) } };
}

/** The guard refused the address, before any connection was made. */
function refusedAddress(reason: string): { ok: false; failure: ExchangeFailure } {
  return { ok: false, failure: { kind: "transport", reason, refusedAddress: true } };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Retry-After (seconds, or an HTTP date) as milliseconds from now; null when absent or unreadable. */
function parseRetryAfter(header: string | string[] | undefined): number | null {
  if (typeof header !== "string") return null;
  const value = header.trim();
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.max(ms, 0) : null;
}

const ERROR_NAMES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "DNS lookup failed temporarily",
  EPIPE: "connection closed while sending",
  UND_ERR_SOCKET: "connection closed before the response was complete",
};

/** A short, stable reason such as "connection refused (ECONNREFUSED)". */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return "request failed";
  // With several addresses Node tries each and reports an AggregateError; the first cause is representative.
  const cause = err instanceof AggregateError && err.errors[0] instanceof Error ? err.errors[0] : err;
  const code = errorCode(err) ?? errorCode(cause);
  if (code && ERROR_NAMES[code]) return `${ERROR_NAMES[code]} (${code})`;
  const message = (cause.message || err.message || "request failed").slice(0, 200);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

function errorCode(err: Error): string | undefined {
  const code: unknown = (err as NodeJS.ErrnoException).code;
  return typeof code === "string" ? code : undefined;
}
